# Agent environment: the task image, reset to the base commit with its history scrubbed so that only the base
# commit and its ancestors are reachable (no remote, other branch, tag, reflog, ORIG_HEAD or FETCH_HEAD).
FROM ${image_ref}
COPY scrub_history.sh /tmp/r2e-scrub_history.sh
RUN sh /tmp/r2e-scrub_history.sh ${base_commit} && rm /tmp/r2e-scrub_history.sh
WORKDIR /workspace
