# The two commands a new user runs: `make example` and `make test`.
# Both install what is missing first (scripts/setup.sh), then do their job.
VENV := .venv
PY   := $(VENV)/bin/python
BUILD := build

.PHONY: setup test example bench bench-quick fuzz clean

setup:
	@bash scripts/setup.sh

test: setup
	$(PY) -m pytest -q -n auto $(PYTEST_ARGS)

# Mutation fuzzing of enzc.ir and enzcc against LLVM/ld (tests/fuzz, docs/reliability.md):
# make fuzz SECONDS=3600 [FUZZ_ARGS="--first-seed 100000 --kinds ll,obj"]
SECONDS ?= 600
fuzz: setup
	nice $(PY) tests/fuzz/campaign.py --seconds $(SECONDS) $(FUZZ_ARGS)

example: setup
	@bash examples/run.sh

bench-quick: setup
	$(PY) -m pip install -q -e '.[bench]'
	$(PY) -m benchmarks.adbench.harness --quick $(BENCH_ARGS)

bench: setup
	$(PY) -m pip install -q -e '.[bench]'
	$(PY) -m benchmarks.adbench.harness $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) .pytest_cache
