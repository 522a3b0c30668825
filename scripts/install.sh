#!/usr/bin/env bash
# Installs pg_graphql (built into dist/extension/) and, unless a PLV8 made elsewhere is already
# there, this repository's plv8 handler into the PostgreSQL that $PG_CONFIG names.
#   PLV8=auto     (default) keep an installed PLV8 not made here; else build and install the handler
#   PLV8=handler  build and install the handler, replacing whatever plv8 is installed
set -euo pipefail
cd "$(dirname "$0")/.."

pg_config=${PG_CONFIG:-pg_config}
choice=${PLV8:-auto}
extdir="$("$pg_config" --sharedir)/extension"

case "$choice" in
  auto | handler) ;;
  *) echo "install: PLV8 must be auto or handler, got \"$choice\"" >&2; exit 2 ;;
esac

installed=$(scripts/plv8-installed.sh "$extdir")
if [ "$choice" = auto ] && [ "${installed%% *}" = other ]; then
  echo "install: keeping the installed PLV8 (${installed#other }) in $extdir; pg_graphql runs on it."
  echo "         \`make install PLV8=handler\` replaces it with this repository's handler."
else
  if [ "${installed%% *}" = other ]; then
    echo "install: replacing the installed PLV8 (${installed#other }) with this repository's handler (PLV8=handler)"
  fi
  make -s -C plv8 fetch-v8
  echo "install: building the plv8 handler (C++, about a minute the first time)"
  make -s -C plv8 PG_CONFIG="$pg_config"
  make -s -C plv8 install PG_CONFIG="$pg_config"
  echo "install: plv8 is this repository's handler ($extdir/plv8.control)"
fi
install -m 644 dist/extension/pg_graphql.control dist/extension/pg_graphql--*.sql "$extdir/"
echo "install: pg_graphql installed into $extdir"
