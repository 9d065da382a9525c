#!/bin/bash
# Verifier entry point. Harbor uploads tests/ to /tests and runs this after the agent. tests/${grader} computes
# the reward (its docstring says how) and writes /logs/verifier/reward.txt and reward-details.json; any earlier
# reward file, or a folder planted in its place, is removed first. Whatever happens, a reward file is written.
set -u
mkdir -p /logs/verifier
rm -rf /logs/verifier/reward.txt /logs/verifier/reward.json /logs/verifier/reward-details.json
# -I -S: the grader sees no site-packages, .pth file, user site or PYTHON* variable the agent may have planted;
# its bytecode cache goes to a fresh folder, so planted .pyc files are never read. R2E_IN_TASK_CONTAINER=1 lets it
# kill the processes the tests leave behind (only here, never when the grader runs on a host).
R2E_IN_TASK_CONTAINER=1 python3 -I -S -X pycache_prefix="$$(mktemp -d)" /tests/${grader} grade --tests-dir /tests --logs-dir /logs/verifier
if [ ! -s /logs/verifier/reward.txt ]; then
  echo 0 > /logs/verifier/reward.txt
fi
exit 0
