"""The machinery every expensive oracle shares: a worker contract (``worker.py``: ``ping``, ``run``,
``failure``), the executors that run workers in this process, a local pool or a Ray cluster
(``executors.py``, one registry), and the persistent outcome cache (``cache.py``).

Vina docking (``scoring/docking``) and retrosynthesis (``scoring/retro``) each bring a worker, its
settings and outcome types, and a cache codec; nothing here knows either of them.
"""
