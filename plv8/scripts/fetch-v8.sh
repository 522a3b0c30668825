#!/usr/bin/env bash
# Unpacks Debian's libnode108 (V8 10.2 inside Node 18) and its headers into plv8/vendor/,
# without installing the package (it conflicts with the nodejs package), and installs the
# runtime libraries libnode needs plus PostgreSQL's server headers (PGXS).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
vendor=$here/vendor
stamp=$vendor/.fetched

runtime_pkgs="libicu72 libuv1 libc-ares2 libbrotli1 libnghttp2-14 postgresql-server-dev-15"

missing_pkgs() {
  local p out=""
  for p in $runtime_pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || out="$out $p"
  done
  echo "$out"
}

apt_updated=0
apt_update_once() {
  if [ "$apt_updated" = 0 ]; then apt-get update -qq; apt_updated=1; fi
}

if [ -f "$stamp" ] && [ -f "$vendor/usr/include/node/v8.h" ] && [ -z "$(missing_pkgs)" ]; then
  exit 0
fi

need=$(missing_pkgs)
if [ -n "$need" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "fetch-v8: missing packages:$need (run as root to install them)" >&2
    exit 1
  fi
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null 2>&1 || {
    apt_update_once
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need >/dev/null
  }
fi

if [ ! -f "$stamp" ] || [ ! -f "$vendor/usr/include/node/v8.h" ]; then
  tmp=$(mktemp -d -t plv8-fetch.XXXXXX)
  trap 'rm -rf "$tmp"' EXIT
  # apt's sandbox user must be able to write the download folder.
  chmod 777 "$tmp"
  (cd "$tmp" && apt-get download -qq libnode108 libnode-dev >/dev/null 2>&1) || {
    apt_update_once
    (cd "$tmp" && apt-get download -qq libnode108 libnode-dev >/dev/null)
  }
  rm -rf "$vendor"
  mkdir -p "$vendor"
  for deb in "$tmp"/*.deb; do dpkg -x "$deb" "$vendor"; done
  [ -f "$vendor/usr/include/node/v8.h" ] || { echo "fetch-v8: v8.h missing after unpacking" >&2; exit 1; }
  ls "$vendor"/usr/lib/*/libnode.so.108 >/dev/null
  touch "$stamp"
fi
