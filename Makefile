# The two commands a new user runs: `make example` and `make test`.
# Both install what is missing first (scripts/setup.sh), then do their job.
VENV := .venv
PY   := $(VENV)/bin/python
BUILD := build

.PHONY: setup test example bench bench-quick fuzz fuzz-ad reduce-ad clean

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

# Random-program differential testing of the AD engine (tests/randprog, docs/reliability.md):
#   make fuzz-ad N=1000 SEED=1 [JOBS=2] [FUZZ_AD_ARGS="--opt O2 --without fnptr"]
#   make fuzz-ad N=1 SEED=1234          reproduce one seed
#   make reduce-ad SEED=1234 OPT=O2     shrink a failing (or rejected) seed
# Results go to build/randprog/ (ignored by git); both run under nice.
N ?= 100
SEED ?= 1
JOBS ?= 1
OPT ?= O2

fuzz-ad: setup
	cd tests && nice -n 10 $(CURDIR)/$(PY) -m randprog fuzz --n $(N) --seed $(SEED) --jobs $(JOBS) $(FUZZ_AD_ARGS)

reduce-ad: setup
	cd tests && nice -n 10 $(CURDIR)/$(PY) -m randprog reduce $(SEED) --opt $(OPT) $(REDUCE_ARGS)

clean:
	rm -rf $(BUILD) .pytest_cache
