#!/bin/bash
# Verifier entry point of a diff-similarity task. Harbor uploads tests/ to /tests and runs this after the agent.
# verifier.py diffs /workspace against the base commit (untracked files included, ignored ones not), scores the
# diff against oracle.patch and writes /logs/verifier/reward.txt (a number in [0, 1]) and reward-details.json.
# Whatever happens, a reward file is written.
set -u
mkdir -p /logs/verifier
rm -f /logs/verifier/reward.txt /logs/verifier/reward.json /logs/verifier/reward-details.json
python3 /tests/verifier.py grade --tests-dir /tests --logs-dir /logs/verifier
if [ ! -s /logs/verifier/reward.txt ]; then
  echo 0 > /logs/verifier/reward.txt
fi
exit 0
