# Agent environment: the task image, reset to the base commit with its history scrubbed so that only the base
# commit and its ancestors are reachable (no remote, other branch, tag, reflog, ORIG_HEAD or FETCH_HEAD).
# The agent works as the unprivileged user `learner` ([agent].user), owner of the work tree; the verifier runs as
# root after it, so nothing the agent can write reaches the interpreter, its libraries or the grader's processes.
# /tests is root's and closed (0700) before Harbor uploads the grading inputs into it (an upload keeps the
# folder's mode): a process the agent left running read the original test files there between the upload and
# the grader's start, and told every twin from its original (red team 7: 1.0 without solving).
# Git's objects stay root's (read-only files git never rewrites; their folders are the learner's): giving them
# away would copy the whole pack into this layer.
FROM ${image_ref}
COPY scrub_history.sh /tmp/r2e-scrub_history.sh
RUN sh /tmp/r2e-scrub_history.sh ${base_commit} && rm /tmp/r2e-scrub_history.sh \
 && (id -u learner >/dev/null 2>&1 || useradd --create-home --shell /bin/bash learner) \
 && find /workspace -path /workspace/.git/objects -prune -o -exec chown -h learner:learner {} + \
 && find /workspace/.git/objects -type d -exec chown learner:learner {} + \
 && install -d -m 0700 -o root -g root /tests
WORKDIR /workspace
