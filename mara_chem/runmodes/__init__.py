"""REINVENT 4 run modes: staged learning (``mara_chem.rl``), transfer learning, sampling and scoring.

One TOML file per run; ``run_type`` picks the mode. ``modes.py`` holds one record per mode (load,
preflight, describe, run) and ``cli.py`` dispatches ``mara-chem run`` / ``mara-chem validate`` through it.
"""
