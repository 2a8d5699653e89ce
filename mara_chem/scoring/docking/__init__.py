"""AutoDock Vina docking behind the ``vina_docking`` component.

targets (dockstring name or receptor + box) -> ligand_prep (pH, ETKDG, force field, Meeko PDBQT) ->
vina_runner (``VinaWorker``: computes the receptor maps once and docks many ligands) -> cache (the docking
codec of the shared outcome cache). Where the workers run (serial, process pool, Ray) and the cache table
are ``scoring/workers``, shared with every expensive oracle. Heavy imports (vina, meeko, ray) stay inside
the functions that use them.
"""
