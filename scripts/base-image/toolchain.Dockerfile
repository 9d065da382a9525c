# Local toolchain base image (r2e/<language>:<version>), built by scripts/setup_docker.sh from a toolchain on this
# host (no registry serves one here). It starts from the Python stand-in, so the grader's python3 and git's apt
# source are there; the toolchain is copied to the same folder it has on the host.
# Context: toolchain/ (the toolchain's install folder), env (KEY=VALUE lines for ENV).
ARG BASE=python:3.12-slim
FROM ${BASE}
ARG DEST=/usr/local/go
ARG TOOL_PATH=/usr/local/go/bin
COPY toolchain/ ${DEST}/
ENV PATH=${TOOL_PATH}:/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin
