#!/usr/bin/env bash
# Set up everything on a fresh machine and run the main job on the demo repository:
#   .venv with repo2rlenv, Docker with the base image, ./demo/calc-demo (a small package with PRs in its history),
#   then `repo2rlenv generate --pipeline pr_runtime ./demo/calc-demo --out ./demo/tasks`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash scripts/bootstrap_venv.sh
bash scripts/setup_docker.sh
mkdir -p demo
if [ ! -d demo/calc-demo ]; then .venv/bin/python -m repo2env.sources.demo_repo demo/calc-demo >/dev/null; fi
exec .venv/bin/repo2rlenv generate --pipeline pr_runtime demo/calc-demo --out demo/tasks "$@"
