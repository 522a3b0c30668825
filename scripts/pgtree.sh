#!/usr/bin/env bash
# Copies the PostgreSQL tree that $PG_CONFIG names (Debian's layout: <prefix>/lib/postgresql/15,
# <prefix>/share/postgresql/15, <prefix>/include/postgresql) into DEST/<prefix>. PostgreSQL finds
# its share and lib folders relative to its binaries, so with DEST's bin folder first on PATH the
# copy is a separate install: extensions installed there leave the original untouched.
#   scripts/pgtree.sh DEST     prints the copy's bin folder
set -euo pipefail
dest=$1
pg_config=${PG_CONFIG:-pg_config}
bindir=$("$pg_config" --bindir)
sharedir=$("$pg_config" --sharedir)
major=$(basename "$(dirname "$bindir")")
prefix=${bindir%/lib/postgresql/"$major"/bin}
if [ "$prefix" = "$bindir" ] || [ "$sharedir" != "$prefix/share/postgresql/$major" ]; then
  echo "pgtree: $bindir is not in Debian's layout (<prefix>/lib/postgresql/<major>/bin)" >&2
  exit 1
fi
rm -rf "$dest"
mkdir -p "$dest$prefix/lib/postgresql" "$dest$prefix/share/postgresql" "$dest$prefix/include"
cp -a "$prefix/lib/postgresql/$major" "$dest$prefix/lib/postgresql/"
cp -a "$prefix/share/postgresql/$major" "$dest$prefix/share/postgresql/"
cp -a "$prefix/include/postgresql" "$dest$prefix/include/"
# The cluster's OS user (tests run initdb as postgres when root) must reach the binaries.
chmod 755 "$dest"
d="$dest$prefix"; while [ "$d" != "$dest" ]; do chmod 755 "$d"; d=$(dirname "$d"); done
echo "$dest$prefix/lib/postgresql/$major/bin"
