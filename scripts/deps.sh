#!/usr/bin/env bash
# Installs what building, installing and testing need on a fresh Debian 12 machine: Debian
# packages (as root), the npm packages, and the V8 libraries the language handler links with.
# Idempotent, and quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  postgresql-15 postgresql-server-dev-15 postgresql-contrib
  g++ make
  # runtime libraries of Debian's libnode108 (the V8 the handler links with)
  libicu72 libuv1 libc-ares2 libbrotli1 libnghttp2-14
  # the browser test of the GraphiQL page
  chromium fonts-liberation
  # the server test behind a transaction-mode pooler
  pgbouncer
  # the certificate of the test server that enforces SSL
  openssl
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "deps: missing Debian packages (install them as root): ${missing[*]}" >&2
    exit 1
  fi
  echo "deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# A Debian install may start the packaged cluster; tests run their own throwaway ones.
if [ -n "$(ls /etc/postgresql 2>/dev/null)" ] && command -v pg_ctlcluster >/dev/null; then
  pg_lsclusters -h 2>/dev/null | awk '$4 == "online" {print $1, $2}' | while read -r v c; do
    pg_ctlcluster "$v" "$c" stop || true
  done
fi

# npm packages: reinstall when the lockfile is newer than the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

make -C plv8 fetch-v8
