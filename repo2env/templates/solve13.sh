#!/bin/bash
# Oracle (schema 1.3): copy the reference files into place. solution/reference/ mirrors /workspace; the files
# the reference deletes are listed in solution/deleted.txt. Harbor uploads solution/ to /solution.
set -euo pipefail
if [ -d /solution/reference ]; then
  cp -r --preserve=mode /solution/reference/. /workspace/
fi
if [ -f /solution/deleted.txt ]; then
  while IFS= read -r path; do
    [ -n "$path" ] && rm -f -- "/workspace/$path"
  done < /solution/deleted.txt
fi
