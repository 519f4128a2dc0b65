# The README's two commands: `make example` and `make test`, each setting up only what it needs.
PY := .venv/bin/python

.PHONY: example test bench
example:
	@bash scripts/setup.sh example
	@$(PY) examples/cosh/run_example.py

test:
	@bash scripts/setup.sh test
	@$(PY) -m pytest -n 2 -q $(PYTEST_ARGS)

bench:
	@bash scripts/setup.sh test
	@$(PY) benchmarks/convert_bench.py
