#!/bin/bash
# Verifier entry point. Harbor uploads tests/ to /tests and runs this after the agent; the reward goes to
# /logs/verifier/reward.txt. verifier.py deletes any earlier reward file, restores test files and test
# configuration to the base commit, applies the hidden test patch, runs only the FAIL_TO_PASS + PASS_TO_PASS
# tests and writes the reward. Whatever happens, a reward file is written.
set -u
mkdir -p /logs/verifier
rm -rf /logs/verifier/reward.txt /logs/verifier/reward.json /logs/verifier/reward-details.json
python3 /tests/verifier.py grade --tests-dir /tests --logs-dir /logs/verifier
if [ ! -s /logs/verifier/reward.txt ]; then
  echo 0 > /logs/verifier/reward.txt
fi
exit 0
