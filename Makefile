# pg_graphql: build, install and test both extensions (plv8, the language handler, and
# pg_graphql) against the PostgreSQL that `pg_config` names.
#   PLV8=auto (default): `make install` keeps a PLV8 installed there that this repository did not
#   make and installs only pg_graphql for it; PLV8=handler installs this repository's handler.
.PHONY: all deps deps-run deps-test build build-extension build-handler build-server install test property stress-server demo screenshot bench conformance clean

PG_CONFIG ?= pg_config
PLV8 ?= auto
export PG_CONFIG PLV8

all: build

# What building and installing need; `deps-run` adds PostgreSQL's server (the demo), `deps-test`
# the tools the tests use (Chromium, pgbouncer, openssl). See scripts/deps.sh.
deps:
	@scripts/deps.sh build
deps-run:
	@scripts/deps.sh run
deps-test:
	@scripts/deps.sh test

build: build-extension build-handler build-server

build-extension:
	@node build/build.mjs

build-handler:
	@$(MAKE) -s -C plv8 fetch-v8
	@$(MAKE) -s -C plv8

build-server:
	@node server/tools/managementTypes.mjs
	@node server/build.mjs

install: deps build-extension build-server
	@scripts/install.sh

test: deps-test install
	@scripts/test.sh

# The long property run (random schemas and queries against the SQL oracle); `make test` runs
# 300 cases of one seed. PROPERTY_SEEDS and PROPERTY_CASES (per seed) choose another run.
PROPERTY_SEEDS ?= 1,2,3
PROPERTY_CASES ?= 10000
property: install
	PROPERTY_SEEDS=$(PROPERTY_SEEDS) PROPERTY_CASES=$(PROPERTY_CASES) npx vitest run test/property

# Hostile input and killed backends against the HTTP server (a few minutes; not part of `test`).
stress-server: install
	npx vitest run --config test/stress/vitest.config.ts

demo: deps-run install
	node server/bin.js demo

# Rewrites docs/graphiql.png and docs/dashboard-*.png (tracked), so it is not part of the tests.
screenshot: install
	node server/dist/screenshot.mjs

bench: install
	$(MAKE) -C bench

# pg_regress cases from pg_graphql's and PLV8's own suites, kept beside the repository (not in it)
# by whoever has them; see "Compatibility cases" in README.md.
CONFORMANCE ?= ../shared/conformance
conformance: install
	@if [ ! -x $(CONFORMANCE)/run ]; then \
	  echo "conformance: no case suite at $(CONFORMANCE) (see README.md, Compatibility cases); set CONFORMANCE=DIR to run one"; \
	  exit 0; fi; \
	$(CONFORMANCE)/run -c $(CONFORMANCE)/plv8 && $(CONFORMANCE)/run

clean:
	rm -rf dist
	$(MAKE) -C plv8 clean
