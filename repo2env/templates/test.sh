#!/bin/bash
# Verifier entry point. Harbor uploads tests/ to /tests and runs this after the agent. tests/${grader} computes
# the reward (its docstring says how) and writes /logs/verifier/reward.txt and reward-details.json; any earlier
# reward file, or a folder planted in its place, is removed first. Whatever happens, a reward file is written.
set -u
mkdir -p /logs/verifier
rm -rf /logs/verifier/reward.txt /logs/verifier/reward.json /logs/verifier/reward-details.json
python3 /tests/${grader} grade --tests-dir /tests --logs-dir /logs/verifier
if [ ! -s /logs/verifier/reward.txt ]; then
  echo 0 > /logs/verifier/reward.txt
fi
exit 0
