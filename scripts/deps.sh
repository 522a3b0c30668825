#!/usr/bin/env bash
# Installs what one purpose needs on a Debian 12 machine: Debian packages (as root) and the npm
# packages. Idempotent, and quick when everything is already there.
#   scripts/deps.sh build   building and installing the extensions (`make install`)
#   scripts/deps.sh run     also what the server and the demo run on (`make demo`)
#   scripts/deps.sh test    also what the tests use (`make test`)
# It never stops, starts or reconfigures a PostgreSQL cluster it did not create: when this run
# installs Debian's postgresql-15, whose package creates and starts a `15/main` cluster, only a
# cluster that appeared during this run is stopped (tests and the demo run their own clusters).
set -euo pipefail
cd "$(dirname "$0")/.."

purpose=${1:-build}
build=(postgresql-server-dev-15 g++ make)
run=(postgresql-15 postgresql-contrib)
test=(
  # the browser test of the GraphiQL page
  chromium fonts-liberation
  # the server test behind a transaction-mode pooler
  pgbouncer
  # the certificate of the test server that enforces SSL
  openssl
)
case "$purpose" in
  build) packages=("${build[@]}") ;;
  run) packages=("${build[@]}" "${run[@]}") ;;
  test) packages=("${build[@]}" "${run[@]}" "${test[@]}") ;;
  *) echo "deps: unknown purpose \"$purpose\": use build, run or test" >&2; exit 2 ;;
esac

clusters() {
  if command -v pg_lsclusters >/dev/null; then pg_lsclusters -h 2>/dev/null | awk '{print $1, $2}' | sort; fi
}

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
  before=$(clusters)
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Installing postgresql-15 creates and starts 15/main: stop only clusters this run created.
  comm -13 <(echo "$before") <(clusters) | while read -r v c; do
    [ -n "$v" ] || continue
    echo "deps: stopping the cluster $v/$c that installing PostgreSQL created (pg_ctlcluster $v $c start starts it)"
    pg_ctlcluster "$v" "$c" stop || true
  done
fi

# npm packages: reinstall when the lockfile is newer than the last install.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "deps: npm ci (the build tools, the server's packages and the test tools)"
  npm ci --no-audit --no-fund --loglevel=error
fi
