#!/usr/bin/env bash
# Run the whole test suite on a fresh machine: .venv, Docker and the base image first (Docker tests need them).
# Under CI=true a Docker test that cannot run fails the suite instead of being skipped.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap_venv.sh
bash scripts/setup_docker.sh
exec .venv/bin/python -m pytest "$@"
