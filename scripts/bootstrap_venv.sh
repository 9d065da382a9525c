#!/usr/bin/env bash
# Create ./.venv with a Python >= 3.12 and install repo2rlenv (editable, with test extras). Idempotent.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

find_python() {
  local c
  # 3.12 first (the version the tool is developed and measured on), then any newer one
  for c in python3.12 $(ls -d /root/.pyenv/versions/3.12*/bin/python3 2>/dev/null | sort -rV) python3.13 python3 \
      $(ls -d /root/.pyenv/versions/3.1[3-9]*/bin/python3 2>/dev/null | sort -rV); do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
      command -v "$c"; return
    fi
  done
  echo "bootstrap_venv.sh: no Python >= 3.12 found; install one (e.g. apt-get install python3.12 or pyenv)" >&2
  exit 1
}

if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import sys; sys.exit(sys.version_info < (3, 12))'; then
  rm -rf .venv
  "$(find_python)" -m venv .venv
fi
stamp=.venv/.r2e-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null
  .venv/bin/python -m pip install -q -e '.[test]'
  touch "$stamp"
fi
echo "[setup] .venv ready ($(.venv/bin/python --version))" >&2
