#!/usr/bin/env bash
# Install Debian's docker-registry (the CNCF distribution registry) for the push/pull tests, which start their own
# instance on 127.0.0.1 with a temporary storage folder. Idempotent; the package's own service is not used.
set -euo pipefail
if command -v docker-registry >/dev/null 2>&1; then
  echo "[setup] docker-registry present" >&2
  exit 0
fi
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
echo "[setup] installing docker-registry (apt)" >&2
as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq docker-registry >/dev/null
# The package may start its own service on :5000; the tests do not need it.
(as_root service docker-registry stop || true) >/dev/null 2>&1
command -v docker-registry >/dev/null
