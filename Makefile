# The two commands of the README: `make demo` (the main job) and `make test` (the test suites).
# Both create/reuse .venv first and are safe to run twice; `make demo` installs only the package itself,
# `make test` also the benchmark lab (benchmarks/, the mara-chem-bench distribution) and runs its suite too.
.PHONY: venv venv-demo demo test test-all

venv:
	@bash scripts/setup_venv.sh test

venv-demo:
	@bash scripts/setup_venv.sh demo

demo: venv-demo
	.venv/bin/mara-chem run configs/demo.toml --overwrite --report

# --durations lists the slowest tests, so the default suite is kept under its 10 minutes on 2 cores by reading them.
test: venv
	.venv/bin/python -m pytest -q --durations=15
	cd benchmarks && ../.venv/bin/python -m pytest -q

test-all: venv
	.venv/bin/python -m pytest -q -m ""
	cd benchmarks && ../.venv/bin/python -m pytest -q -m ""
