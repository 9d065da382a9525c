# A task image derived from another commit's (the same dependencies): that commit's image with the commits after it
# fetched from a git bundle and checked out. The install is not repeated; build output it left stays.
FROM ${parent_image}
COPY commits.bundle /tmp/r2e-commits.bundle
RUN cd /workspace && git fetch -q --no-write-fetch-head /tmp/r2e-commits.bundle ${ref}:refs/r2e/derived \
 && git -c advice.detachedHead=false reset -q --hard ${commit} && git update-ref -d refs/r2e/derived \
 && rm /tmp/r2e-commits.bundle && test "$$(git rev-parse HEAD)" = "${commit}"
