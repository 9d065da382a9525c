#!/usr/bin/env bash
# Nightly dataset build, for cron, the systemd timer beside this file, or a CI schedule.
#
#   scripts/nightly/nightly.sh /srv/r2e/dataset.toml [--jobs 4] [--shard K/N] [--executor ray]
#
# Runs `repo2rlenv build` (incremental: only new or changed candidates run). The config's [push] section, when
# present, pushes images and publishes the datasets, and only after a build without failures. Every night's
# console output goes to <config dir>/logs/<UTC date>.log; the build writes its own report (report.html and
# reports/<build id>.{json,html} in the config's out folder), which are kept. Exit code: the build's.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CONFIG="${1:?usage: nightly.sh DATASET_TOML [build options]}"
shift
LOGS="$(cd "$(dirname "$CONFIG")" && pwd)/logs"
mkdir -p "$LOGS"
LOG="$LOGS/$(date -u +%Y-%m-%d).log"
bash "$ROOT/scripts/bootstrap_venv.sh" >>"$LOG" 2>&1
bash "$ROOT/scripts/setup_docker.sh" >>"$LOG" 2>&1
status=0
"$ROOT/.venv/bin/repo2rlenv" build "$CONFIG" "$@" >>"$LOG" 2>&1 || status=$?
echo "nightly build of $CONFIG finished with exit code $status (log: $LOG)" | tee -a "$LOG"
exit "$status"
