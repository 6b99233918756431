#!/usr/bin/env bash
# Runs photofx on its embedded defaults: installs, builds, then serves on
# http://localhost:${PORT:-3000} (migrations are applied at start).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  # npm ci refuses this lock file (npm 11 omits other platforms' optional packages from it);
  # npm install follows the lock just the same and fills those in.
  npm install --no-audit --no-fund
fi
npx next build
# Memory (docs/PERFORMANCE.md): two malloc arenas instead of one per thread (the engine's
# threads and libvips' each grew their own), and a smaller young generation.
exec env NODE_ENV=production MALLOC_ARENA_MAX=2 node --max-semi-space-size=4 --import tsx server.ts
