#!/bin/sh
# Reset /workspace to the given base commit and make it the only reachable history.
# Usage: scrub_history.sh BASE_COMMIT
set -eu
base="$1"
cd /workspace
git reset -q --hard "$base"
for remote in $(git remote); do git remote remove "$remote"; done
branch=$(git symbolic-ref --short -q HEAD || echo main)
git for-each-ref --format='%(refname)' | while read -r ref; do
  [ "$ref" = "refs/heads/$branch" ] || git update-ref -d "$ref"
done
rm -f .git/ORIG_HEAD .git/FETCH_HEAD .git/MERGE_HEAD .git/CHERRY_PICK_HEAD .git/REVERT_HEAD
git reflog expire --expire=now --all
# Repack only when something became unreachable: a repack of an already clean repository would copy the whole
# pack into this layer for nothing.
if [ -n "$(git fsck --unreachable --no-reflogs --no-progress 2>/dev/null | head -n 1)" ]; then
  git gc -q --prune=now
fi
test "$(git rev-parse HEAD)" = "$base"
