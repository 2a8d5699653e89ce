"""REINVENT 4 run modes besides staged learning: transfer learning, sampling and scoring.

One TOML file per run; ``run_type`` picks the mode (``mara_chem.runmodes.config``) and
``mara_chem.runmodes.cli`` dispatches ``mara-chem run`` / ``mara-chem validate`` on it.
"""
