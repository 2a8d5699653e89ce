"""The peers: published methods run on the lab's task files and counted by mara-chem's own code.

``peer_run`` is what every peer shares (task, oracle, run folder, record, metrics); ``mol_ga`` runs Mol GA
through the ``mol-ga`` package, ``reinvent`` runs REINVENT 4.8's own runner in a child process
(``run_reinvent``); ``cli`` is ``mara-chem-bench-peer``.
"""
