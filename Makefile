# packetpath: build the engine into a virtualenv, then run, test or benchmark.
#
#   make run    the main job: reproduce the DDIO paper into out/ddio
#   make test   Rust unit tests + pytest (make -k test runs both even if one fails)
#   make bench  simulation speed on a fixed suite
#   make instructions  callgrind instruction counts of the speed log's workloads
#   make operations    what an l2fwd packet costs, by modelled operation (callgrind)
#   make golden store the golden runs' report digests again (after a change meant to move results)
#   make docs   the documentation site into out/docs (Sphinx; opens offline)
#   make reproductions  run every reproduction into out/ and make them the docs' latest runs
#   make wheel  a wheel in dist/ that compute nodes pip-install without cargo
#
# Stamp files in .venv make every step a no-op until its inputs change. The
# Python package is installed editable (maturin develop), so Python edits are
# live; only Rust sources and pyproject.toml trigger a rebuild.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# the same bound as [build-system] in pyproject.toml
MATURIN_REQ := maturin>=1.5,<2

RUST_SRC := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name 'Cargo.toml')

.PHONY: run test test-rust test-python bench soak fuzz build clean readme docs reproductions wheel golden instructions operations

run: build
	$(BIN)/packetpath reproduce ddio --out out/ddio

test: test-rust test-python

# The binding crate has no Rust tests of its own (pytest covers it), and a
# test binary of a PyO3 extension module cannot link once it calls Python.
test-rust:
	cargo test --workspace --exclude packetpath-py
	# (each criterion benchmark runs once, so the benches keep compiling)
	cargo test --workspace --exclude packetpath-py --benches

test-python: build
	$(BIN)/pytest -q

bench: build
	$(BIN)/packetpath bench

# Callgrind instruction counts of the speed log's workloads (needs valgrind).
instructions: build
	cargo build --release --example run -p packetpath-engine
	$(BIN)/python tools/instructions.py target/release/examples/run

# What a simulated l2fwd packet costs by modelled operation (needs
# valgrind; builds a copy of the engine with those primitives out of line).
operations: build
	$(BIN)/python tools/instructions.py --operations

# After a change meant to move results: store every golden run's report
# digest again (tests/test_golden.py compares them; see tests/golden.py).
golden: build
	$(BIN)/python tests/golden.py --write

# The engine is built for CPython's stable ABI (abi3), so one wheel serves
# every Python >= 3.11 of the same OS and CPU architecture.
wheel: $(VENV)/.venv-created
	$(BIN)/maturin build --release --out dist

soak: build
	$(BIN)/packetpath bench --soak

# libFuzzer on nightly Rust (cargo install cargo-fuzz), 5 minutes per target;
# new corpus entries land in fuzz/corpus/, which `make test` replays.
FUZZ_SECONDS ?= 300
fuzz:
	cd fuzz && for t in pcap scenario_json scenario_run; do \
	  cargo +nightly fuzz run -O $$t corpus/$$t -- -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=4096 || exit 1; done

build: $(VENV)/.engine-built

$(VENV)/.venv-created:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip '$(MATURIN_REQ)'
	touch $@

# Builds the engine in release mode and installs packetpath with its runtime
# and test dependencies (declared once, in pyproject.toml).
$(VENV)/.engine-built: $(VENV)/.venv-created $(RUST_SRC) pyproject.toml
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(BIN)):$$PATH $(BIN)/maturin develop --release --extras test,docs
	touch $@

# The README's first run and score lines are derived from the code and the
# latest committed reproduction runs (docs/reproductions/data).
readme: build
	$(BIN)/python -m packetpath._docs readme README.md

# The documentation site: docs/ (Markdown) plus pages generated from the code
# (docs/conf.py calls packetpath._docs); warnings are errors.
docs: build
	$(BIN)/sphinx-build -q -W --keep-going -b html docs out/docs

# Every reproduction packetpath.reproduce ships, then its claims and charts
# become the latest run the docs and the README show (about 15 minutes on two cores).
reproductions: build
	papers=$$($(BIN)/python -c 'from packetpath.reproduce._runner import papers; print(*papers())') && \
	for p in $$papers; do rm -rf out/$$p && $(BIN)/packetpath reproduce $$p --out out/$$p || exit 1; done && \
	$(BIN)/python -m packetpath._docs data $$(for p in $$papers; do echo out/$$p; done)
	$(MAKE) readme

clean:
	rm -rf $(VENV) out dist python/packetpath/_engine*.so
