# Agent environment (schema 1.3): the task image with the repository replaced by the learner's snapshot in
# source/ (no .git, the hidden tests removed). The agent works as the unprivileged user `learner`.
FROM ${image_ref}
COPY strip_repository.sh /tmp/r2e-strip_repository.sh
RUN bash /tmp/r2e-strip_repository.sh /workspace && rm /tmp/r2e-strip_repository.sh
COPY source/ /workspace/
RUN (id -u learner >/dev/null 2>&1 || useradd --create-home --shell /bin/bash learner) \
 && chown -R learner:learner /workspace
WORKDIR /workspace
