#!/usr/bin/env bash
# `make test`: runs every test against the PostgreSQL that $PG_CONFIG names. When the plv8
# installed there is a PLV8 made elsewhere (kept by `make install`), the tests run on a temporary
# copy of that PostgreSQL tree with this repository's handler installed in it, so the handler's
# own tests test the handler and the PLV8 in place stays as it is.
set -euo pipefail
cd "$(dirname "$0")/.."
pg_config=${PG_CONFIG:-pg_config}
# The whole run type-checks first: the Management API's handlers against the document's schemas
# (the generated operation types), the rest of the tree and the dashboard's browser code.
if [ $# -eq 0 ]; then
  echo "test: type check"
  npm run -s typecheck
fi
installed=$(scripts/plv8-installed.sh "$("$pg_config" --sharedir)/extension")
if [ "${installed%% *}" != other ]; then exec npx vitest run "$@"; fi
tree=$(mktemp -d -t pg_graphql-tree.XXXXXX)
trap 'rm -rf "$tree"' EXIT
echo "test: plv8 in $("$pg_config" --sharedir) is a PLV8 made elsewhere (${installed#other }): testing on a copy of that tree with this repository's handler"
bin=$(scripts/pgtree.sh "$tree")
PATH="$bin:$PATH" PG_CONFIG="$bin/pg_config" PLV8=handler scripts/install.sh
PATH="$bin:$PATH" npx vitest run "$@"
