# arena — build, test and demo entry points.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP_BASE := $(VENV)/.stamp-base
STAMP_DEV := $(VENV)/.stamp-dev
STAMP_BENCH := $(VENV)/.stamp-bench
STAMP_MUTATION := $(VENV)/.stamp-mutation
NODE_BOT := sample_bots/node
CPP_BOT := sample_bots/cpp
WEB_AXE := tests/web/axe

.PHONY: demo test lint mutation mutation-quick bench protos docs docs-build rules-page bots node-bot cpp-bot web-axe clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

$(STAMP_BASE): pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e .
	touch $@

$(STAMP_DEV): pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e '.[dev]'
	touch $@ $(STAMP_BASE)

$(STAMP_MUTATION): pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e '.[dev,mutation]'
	touch $@ $(STAMP_DEV) $(STAMP_BASE)

$(STAMP_BENCH): pyproject.toml | $(VENV)/bin/python
	$(PIP) install --quiet -e '.[dev,bench]'
	touch $@ $(STAMP_DEV) $(STAMP_BASE)

demo: $(STAMP_BASE)
	-@$(MAKE) --no-print-directory node-bot >/dev/null 2>&1
	$(VENV)/bin/arena demo

# The suite waits on sockets and bot processes more than it computes: two workers.
test: $(STAMP_DEV) bots web-axe
	$(PY) -m pytest -q -n 2 --dist loadfile

lint: $(STAMP_DEV)
	$(VENV)/bin/ruff check arena tests sample_bots benchmarks docs/hooks mutation
	$(VENV)/bin/mypy

# Mutation testing (mutation/modules.toml): each core module's score and surviving mutants.
# Not part of `make test`: it runs each module's tests once per mutant. MODULES=path ...
# picks modules; QUICK=1 (or make mutation-quick) takes those that differ from main.
mutation: $(STAMP_MUTATION)
	$(PY) -m mutation $(if $(QUICK),--quick) $(MODULES)

mutation-quick: $(STAMP_MUTATION)
	$(PY) -m mutation --quick $(MODULES)

bench: $(STAMP_BENCH) bots
	$(PY) -m benchmarks

protos: $(STAMP_DEV)
	$(PY) -m arena.protogen

# The documentation site (mkdocs.yml, docs/): served with live reload on 127.0.0.1:8000.
docs: $(STAMP_DEV)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve

# The rules page is a copy of the rules specification kept beside the repository.
rules-page:
	cp ../shared/RULES.md docs/reference/rules.md

docs-build: $(STAMP_DEV)
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

bots: node-bot cpp-bot

node-bot:
	@if command -v npm >/dev/null 2>&1 && [ -f $(NODE_BOT)/package.json ]; then \
		cd $(NODE_BOT) && npm ci --silent --no-audit --no-fund; \
	else echo "node-bot: npm not found, the Node bot is not built"; fi

# axe-core, which the web front's browser test injects into every page it opens.
web-axe:
	@if command -v npm >/dev/null 2>&1 && [ -f $(WEB_AXE)/package.json ]; then \
		cd $(WEB_AXE) && npm ci --silent --no-audit --no-fund; \
	else echo "web-axe: npm not found, the web front's accessibility test cannot run"; fi

cpp-bot:
	@if [ -f $(CPP_BOT)/Makefile ] && command -v protoc >/dev/null 2>&1 && command -v grpc_cpp_plugin >/dev/null 2>&1 \
		&& pkg-config --exists grpc++ 2>/dev/null; then \
		$(MAKE) --no-print-directory -C $(CPP_BOT); \
	else echo "cpp-bot: protoc, grpc_cpp_plugin or libgrpc++-dev missing, the C++ bot is not built"; fi

clean:
	rm -rf $(VENV) $(NODE_BOT)/node_modules $(WEB_AXE)/node_modules $(CPP_BOT)/build .pytest_cache .mypy_cache .ruff_cache site
