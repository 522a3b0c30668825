#!/usr/bin/env bash
# Prints which plv8 an extension folder holds: `none`, `handler` (this repository's, whose
# control file carries its marker line) or `other <default_version>` (a PLV8 made elsewhere).
#   scripts/plv8-installed.sh "$(pg_config --sharedir)/extension"
set -euo pipefail
control="$1/plv8.control"
if [ ! -f "$control" ]; then
  echo none
elif grep -q -e '^# pg_graphql plv8 handler' -e '^# A PL/V8-compatible JavaScript procedural language' "$control"; then
  echo handler
else
  version=$(sed -n "s/^[[:space:]]*default_version[[:space:]]*=[[:space:]]*'\([^']*\)'.*/\1/p" "$control")
  echo "other ${version:-of unknown version}"
fi
