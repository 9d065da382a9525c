#!/bin/bash
# Turn the git work tree DIR into a plain snapshot: delete its tracked regular files and its .git, so that the
# snapshot copied in next is all the repository holds (no history at all). Tracked symlinks and untracked build
# by-products of the install (egg-info, compiled extensions) stay, and so does the content of submodules (a gitlink,
# mode 160000, is a directory the image holds the submodule's files in: it is not the snapshot's to replace).
# Usage: strip_repository.sh DIR
set -euo pipefail
cd "$1"
git -c core.quotePath=false ls-files -z --format='%(objectmode) %(path)' | while IFS= read -r -d '' entry; do
  case "${entry%% *}" in
    120000|160000) ;;
    *) rm -f -- "${entry#* }" ;;
  esac
done
rm -rf .git
