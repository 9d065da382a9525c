#!/bin/bash
# Verifier entry point. Harbor uploads tests/ to /tests and runs this after the agent. tests/${grader} computes
# the reward (its docstring says how) and writes /logs/verifier/reward.txt and reward-details.json; any earlier
# reward file, or a folder planted in its place, is removed first. Whatever happens, a reward file is written.
# Every program is named by its absolute path (PATH is not searched: a program planted earlier on it never runs).
set -u
PATH=/usr/bin:/bin
/usr/bin/mkdir -p /logs/verifier
/usr/bin/rm -rf /logs/verifier/reward.txt /logs/verifier/reward.json /logs/verifier/reward-details.json
# The interpreter is the one recorded at generation, run as -I -S: the grader sees no site-packages, .pth file,
# user site or PYTHON* variable the agent may have planted; its bytecode cache goes to a fresh folder, so planted
# .pyc files are never read. R2E_IN_TASK_CONTAINER=1 lets it kill the processes the agent and the tests leave
# behind (only here, never on a host). The grader gets ${grader_budget} s, less than Harbor's verifier timeout, so a
# reward is always written.
R2E_IN_TASK_CONTAINER=1 /usr/bin/timeout -s KILL ${grader_budget} ${python} -I -S -X pycache_prefix="$$(/usr/bin/mktemp -d)" /tests/${grader} grade --tests-dir /tests --logs-dir /logs/verifier${grader_args}
if [ ! -s /logs/verifier/reward.txt ]; then
  if [ -f /tests/env_guard.py ]; then R2E_IN_TASK_CONTAINER=1 ${python} -I -S /tests/env_guard.py kill-strays; fi
  echo 0 > /logs/verifier/reward.txt
fi
exit 0
