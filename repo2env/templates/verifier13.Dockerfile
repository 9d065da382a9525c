# Verifier environment (schema 1.3, [verifier] environment_mode = "separate"): the task image with the
# verifier's full copy of the repository in source/ (hidden tests included) and the grader in /tests. Harbor
# copies the agent's artifacts over /workspace, then runs /tests/test.sh here.
FROM ${image_ref}
${bytecode}COPY strip_repository.sh /tmp/r2e-strip_repository.sh
RUN bash /tmp/r2e-strip_repository.sh /workspace && rm /tmp/r2e-strip_repository.sh
COPY source/ /workspace/
COPY ${grader_files} /tests/
WORKDIR /workspace
