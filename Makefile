# pg_graphql: build, install and test both extensions (plv8, the language handler, and
# pg_graphql) against the PostgreSQL that `pg_config` names.
.PHONY: all deps build build-extension build-handler build-server install test property stress-server demo screenshot bench conformance clean

PG_CONFIG ?= pg_config
EXTDIR = $(shell $(PG_CONFIG) --sharedir)/extension

all: build

deps:
	scripts/deps.sh

build: build-extension build-handler build-server

build-extension:
	node build/build.mjs

build-handler:
	$(MAKE) -C plv8

build-server:
	@if [ -f server/build.mjs ]; then node server/build.mjs; fi

install: deps build
	$(MAKE) -C plv8 install
	install -m 644 dist/extension/pg_graphql.control dist/extension/pg_graphql--*.sql $(EXTDIR)/

test: install
	npx vitest run

# The long property run (random schemas and queries against the SQL oracle); `make test` runs
# 300 cases of one seed. PROPERTY_SEEDS and PROPERTY_CASES (per seed) choose another run.
PROPERTY_SEEDS ?= 1,2,3
PROPERTY_CASES ?= 10000
property: install
	PROPERTY_SEEDS=$(PROPERTY_SEEDS) PROPERTY_CASES=$(PROPERTY_CASES) npx vitest run test/property

# Hostile input and killed backends against the HTTP server (a few minutes; not part of `test`).
stress-server: install
	npx vitest run --config test/stress/vitest.config.ts

demo: install
	node server/bin.js demo

# Rewrites docs/graphiql.png and docs/dashboard-*.png (tracked), so it is not part of the tests.
screenshot: install
	node server/dist/screenshot.mjs

bench: install
	$(MAKE) -C bench

conformance: install
	../shared/conformance/run -c ../shared/conformance/plv8
	../shared/conformance/run

clean:
	rm -rf dist
	$(MAKE) -C plv8 clean
