#!/bin/bash
# Oracle: apply the reference (gold) patch to the repository. Harbor uploads solution/ to /solution.
set -euo pipefail
cd /workspace
git apply --binary --whitespace=nowarn /solution/patch.diff
