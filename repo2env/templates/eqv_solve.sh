#!/bin/bash
# Oracle: the reference implementation as task_module.py. Harbor uploads solution/ to /solution.
set -euo pipefail
cp /solution/task_module.py /workspace/task_module.py
