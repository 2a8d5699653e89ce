"""AutoDock Vina docking machinery behind the ``vina_docking`` component.

targets (dockstring name or receptor + box) -> ligand_prep (pH, ETKDG, force field, Meeko PDBQT) ->
vina_runner (a worker that computes the receptor maps once and docks many ligands) -> executors (serial,
process pool, Ray; one interface) -> cache (sqlite, keyed by canonical SMILES and a settings hash).
Heavy imports (vina, meeko, ray) stay inside the functions that use them.
"""
