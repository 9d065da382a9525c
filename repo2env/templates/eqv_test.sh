#!/bin/bash
# Verifier entry point of an equivalence_tests task. eqv_harness.py runs the agent's task_module.<function> in a
# child process on every case of cases.json, with the repository's original function disabled, and compares the
# outcomes (return values and exception types) with the reference's, recorded at generation time.
# Reward 1 when every case agrees, else 0. Whatever happens, a reward file is written.
set -u
mkdir -p /logs/verifier
rm -f /logs/verifier/reward.txt /logs/verifier/reward.json /logs/verifier/reward-details.json
python3 /tests/eqv_harness.py grade --tests-dir /tests --logs-dir /logs/verifier
if [ ! -s /logs/verifier/reward.txt ]; then
  echo 0 > /logs/verifier/reward.txt
fi
exit 0
