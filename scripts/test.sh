#!/usr/bin/env bash
# Runs every test of photofx on a fresh machine: installs what the tests need (npm
# packages, Debian chromium), brings up PostgreSQL, then lint, types, unit and integration
# tests (vitest) and the browser tests (Playwright in Debian chromium).
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else return 1; fi; }
apt_updated=0
apt_install() {
  if ! command -v apt-get >/dev/null; then return 1; fi
  if [ "$apt_updated" = 0 ]; then as_root apt-get update -qq >/dev/null; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "$@" >/dev/null
}

step "npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # npm ci refuses this lock file (npm 11 omits other platforms' optional packages from it);
  # npm install follows the lock just the same and fills those in.
  npm install --no-audit --no-fund
fi

step "PostgreSQL"
export TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:5432/postgres}"
pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null || node -e "const c=new (require('pg').Client)(process.env.TEST_DATABASE_URL);c.connect().then(()=>c.end()).then(()=>process.exit(0),()=>process.exit(1))"; }
if ! pg_up; then
  if ! command -v pg_ctlcluster >/dev/null; then
    echo "PostgreSQL is not installed; installing it from Debian's packages"
    apt_install postgresql || { echo "Cannot install PostgreSQL: install it (apt-get install postgresql) or set TEST_DATABASE_URL" >&2; exit 1; }
    ver=$(ls /etc/postgresql | sort -n | tail -1)
    # Trust local connections for the throwaway test cluster, as CI machines do.
    sed -i 's/^\(host.*127.0.0.1\/32\s*\)\S*$/\1trust/; s/^\(local\s*all\s*postgres\s*\)\S*$/\1trust/' "/etc/postgresql/$ver/main/pg_hba.conf"
  fi
  ver=$(ls /etc/postgresql | sort -n | tail -1)
  as_root pg_ctlcluster --skip-systemctl-redirect "$ver" main start || true
  for _ in $(seq 1 30); do pg_up && break; sleep 1; done
  pg_up || { echo "PostgreSQL did not start: start it, or point TEST_DATABASE_URL at a running server" >&2; exit 1; }
fi
echo "PostgreSQL is up at $TEST_DATABASE_URL"

step "Redis"
export TEST_REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379}"
redis_up() { redis-cli -u "$TEST_REDIS_URL" ping 2>/dev/null | grep -q PONG; }
if ! redis_up; then
  if ! command -v redis-server >/dev/null; then
    echo "Redis is not installed; installing it from Debian's packages"
    apt_install redis-server || { echo "Cannot install Redis: install it (apt-get install redis-server) or set TEST_REDIS_URL" >&2; exit 1; }
  fi
  # No persistence: the tests' queues are throwaway.
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 1 20); do redis_up && break; sleep 0.5; done
  redis_up || { echo "Redis did not start: start it, or point TEST_REDIS_URL at a running server" >&2; exit 1; }
fi
echo "Redis is up at $TEST_REDIS_URL"

step "Debian chromium"
if [ ! -x /usr/bin/chromium ]; then
  apt_install chromium || { echo "Cannot install chromium: apt-get install chromium" >&2; exit 1; }
fi
/usr/bin/chromium --version

step "lint, format, types, generated effect indexes"
node --import tsx scripts/effects-index.ts --check
npx eslint .
npx prettier --check . --log-level warn
npx tsc --noEmit

step "unit and integration tests (vitest)"
npx vitest run

step "the integration suite again in scale-out mode (Redis + BullMQ workers, S3 on s3rver)"
PHOTOFX_TEST_MODE=scaleout npx vitest run tests/integration

step "production build"
npx next build
# Tests that need the build: the client bundle holds none of the server's prompts; real
# production servers refuse a DATA_DIR in use and a busy port; every page's first-load
# JavaScript stays within its budget; the inlined stylesheet is in the RSC payload once.
PHOTOFX_REQUIRE_BUILD=1 npx vitest run src/engine/prompts.bundle.test.ts tests/integration/start-guards.test.ts tests/build/js-budget.test.ts tests/build/inline-css.test.ts

step "browser tests (Playwright, Debian chromium)"
npx playwright test
