#!/usr/bin/env bash
# Installs what the benchmark needs and nothing else: wrk and gnuplot from Debian, and the npm
# packages of bench/ and of each PostGraphile engine (kept apart from the product's packages).
# Quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")"

missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v gnuplot >/dev/null || missing+=(gnuplot-nox)
command -v pgbench >/dev/null || [ -x "$(pg_config --bindir)/pgbench" ] || missing+=(postgresql-client-15)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "bench needs these Debian packages: ${missing[*]} (run as root, or install them)" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

for dir in . engines/postgraphile4 engines/postgraphile5; do
  if [ ! -f "$dir/node_modules/.package-lock.json" ] || [ "$dir/package-lock.json" -nt "$dir/node_modules/.package-lock.json" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  fi
done
