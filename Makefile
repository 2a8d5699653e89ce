# The two commands of the README: `make demo` (the main job) and `make test` (the test suite).
# Both create/reuse .venv first and are safe to run twice.
.PHONY: venv demo test test-all

venv:
	@bash scripts/setup_venv.sh

demo: venv
	.venv/bin/mara-chem run configs/demo.toml --overwrite --report

test: venv
	.venv/bin/python -m pytest -q

test-all: venv
	.venv/bin/python -m pytest -q -m ""
