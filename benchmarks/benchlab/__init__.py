"""The benchmark lab (the ``mara-chem-bench`` distribution): the multi-seed grid runner (``mara-chem-bench``,
also ``benchmarks/run_benchmark.py``) and the peers (``benchlab.peers``, ``mara-chem-bench-peer``).

One module per job: ``tasks`` (task files and hit regions), ``variants`` (the named strategy variants of
``benchmarks/variants.toml``), ``jobs`` (the job grid, each job's run file and configuration fingerprint),
``pool`` (running jobs in worker processes), ``run_metrics`` (one run's metrics from its oracle log),
``stats`` (mean, std and Welch p over seeds), ``tables`` (the Markdown results page), ``plots`` (PNG
figures), ``summary`` (writing every output), ``prior_rates`` (hit rates before learning), ``cli``.
"""
