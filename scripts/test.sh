#!/usr/bin/env bash
# Run the whole test suite on a fresh machine: .venv, Docker, the base image, a registry binary (push tests) and the real Harbor (for the
# cross-check) first.
# Under CI=true a Docker test that cannot run fails the suite instead of being skipped.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# toolchains rustup and Go's tarball install outside the default PATH of a non-login shell (the fixture
# repositories' lockfiles are made with them, and the toolchain images are built from them)
for dir in /usr/local/go/bin "${CARGO_HOME:-$HOME/.cargo}/bin"; do
  case ":$PATH:" in *":$dir:"*) ;; *) [ -d "$dir" ] && PATH="$PATH:$dir" ;; esac
done
export PATH
bash scripts/bootstrap_venv.sh
bash scripts/setup_docker.sh
bash scripts/setup_harbor.sh
bash scripts/setup_registry.sh
exec .venv/bin/python -m pytest "$@"
