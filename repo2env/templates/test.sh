#!/bin/bash
# Verifier entry point. Harbor uploads tests/ to /tests and runs this after the agent. tests/${grader} computes
# the reward (its docstring says how) and writes /logs/verifier/reward.txt and reward-details.json; any earlier
# reward file, or a folder planted in its place, is removed first. Whatever happens, a reward file is written.
# No program but bash, mkdir (before the bootstrap, which kills whatever it may have started) and the interpreter
# recorded at generation runs, each by its absolute path (PATH is not searched: a program planted on it never runs). The interpreter runs as -I -S (no site-packages, .pth
# file, user site or PYTHON* variable the agent may have planted) and reads its program from the here-document
# below (repo2env/bundles/bootstrap.py): a fresh bytecode cache, every process the agent left running killed, then
# the grader files, each checked against its sha256 pin and run from memory, under a budget of ${grader_budget} s
# (less than Harbor's verifier timeout, so a reward is always written). R2E_IN_TASK_CONTAINER=1 lets it kill
# processes (only here, never on a host).
set -u
PATH=/usr/bin:/bin
/usr/bin/mkdir -p /logs/verifier  # before the bootstrap: whatever a replaced mkdir starts is killed by it
R2E_IN_TASK_CONTAINER=1 ${python} -I -S - ${grader_budget} /logs/verifier ${grader_pins} /tests/${grader} grade --tests-dir /tests --logs-dir /logs/verifier${grader_args} <<'R2E_GRADER_BOOTSTRAP'
${bootstrap}
R2E_GRADER_BOOTSTRAP
if [ ! -s /logs/verifier/reward.txt ]; then
  echo 0 > /logs/verifier/reward.txt
fi
exit 0
