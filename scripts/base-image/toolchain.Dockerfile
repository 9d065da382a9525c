# Local toolchain base image (r2e/<language>:<version>), built by scripts/setup_docker.sh from a toolchain on this
# host (no registry serves one here). It starts from the Python stand-in, so the grader's python3 and git's apt
# source are there; the toolchain is copied to the same folder it has on the host.
# Context: toolchain/ (the toolchain's install folder). APT: Debian packages the toolchain needs (Rust links
# with the system C compiler: gcc libc6-dev), installed from Debian's mirror, which this machine reaches.
ARG BASE=python:3.12-slim
FROM ${BASE}
ARG DEST=/usr/local/go
ARG TOOL_PATH=/usr/local/go/bin
ARG APT=""
RUN if [ -n "$APT" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      --no-install-recommends $APT >/dev/null && rm -rf /var/lib/apt/lists/*; fi
COPY toolchain/ ${DEST}/
ENV PATH=${TOOL_PATH}:/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
