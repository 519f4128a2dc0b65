# The README's two commands: `make example` and `make test`.
PY := .venv/bin/python

.PHONY: setup example test bench
setup:
	@bash scripts/setup.sh

example: setup
	@$(PY) examples/cosh/run_example.py

test: setup
	@$(PY) -m pytest -n 2 -q $(PYTEST_ARGS)

bench: setup
	@$(PY) benchmarks/convert_bench.py
