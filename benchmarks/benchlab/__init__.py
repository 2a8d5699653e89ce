"""The multi-seed benchmark runner as a small package; ``benchmarks/run_benchmark.py`` is its command line.

One module per job: ``tasks`` (task files and hit regions), ``variants`` (the named strategy variants of
``benchmarks/variants.toml``), ``jobs`` (the job grid, each job's run file and configuration fingerprint),
``pool`` (running jobs in worker processes), ``run_metrics`` (one run's metrics from its oracle log),
``stats`` (mean, std and Welch p over seeds), ``tables`` (the Markdown results page), ``plots`` (PNG
figures), ``summary`` (writing every output), ``prior_rates`` (hit rates before learning), ``cli``.
"""
