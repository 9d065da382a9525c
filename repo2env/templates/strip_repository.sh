#!/bin/bash
# Turn the git work tree DIR into a plain snapshot: delete its tracked regular files and its .git, so that the
# snapshot copied in next is all the repository holds (no history at all). Tracked symlinks and untracked build
# by-products of the install (egg-info, compiled extensions) stay.
# Usage: strip_repository.sh DIR
set -euo pipefail
cd "$1"
git -c core.quotePath=false ls-files -z --format='%(objectmode) %(path)' | while IFS= read -r -d '' entry; do
  [ "${entry%% *}" = 120000 ] || rm -f -- "${entry#* }"
done
rm -rf .git
