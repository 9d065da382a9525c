# Agent environment of an equivalence_tests task: the task image plus the starting state in start/ (the stub
# task_module.py and, with reference=hidden, the module with the function's body removed), committed as the
# task's only commit (hidden: no parent, so the original body is not in the history) and history-scrubbed. The
# agent works as `learner`, owner of the work tree (environment.Dockerfile says why).
FROM ${image_ref}
COPY scrub_history.sh /tmp/r2e-scrub_history.sh
COPY start/ /tmp/r2e-start/
RUN cd /workspace && git reset -q --hard ${base_commit} && cp -a /tmp/r2e-start/. /workspace/ \
 && git add -A && tree=$$(git write-tree) \
 && commit=$$(git -c user.name=repo2rlenv -c user.email=repo2rlenv@invalid commit-tree $$tree ${parent_flag} -m "Task starting state") \
 && sh /tmp/r2e-scrub_history.sh $$commit && rm -rf /tmp/r2e-scrub_history.sh /tmp/r2e-start \
 && (id -u learner >/dev/null 2>&1 || useradd --create-home --shell /bin/bash learner) \
 && find /workspace -path /workspace/.git/objects -prune -o -exec chown -h learner:learner {} + \
 && find /workspace/.git/objects -type d -exec chown learner:learner {} + \
 && install -d -m 0700 -o root -g root /tests
WORKDIR /workspace
