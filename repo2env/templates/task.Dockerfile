# repo2rlenv task image: the repository at its base commit in /workspace, dependencies installed for that commit.
# The build context's repo/ holds only the base commit and its ancestors (a scrubbed copy, never the source clone).
FROM ${bootstrap_image}
COPY repo/ /workspace/
WORKDIR /workspace
${env_lines}
# Installed packages get their bytecode now (uv: UV_COMPILE_BYTECODE); grading never reads a __pycache__ (it
# compiles afresh into a private cache, or reads the bytecode tree below when the environment manifest vouches
# for it).
RUN export UV_COMPILE_BYTECODE=1 && ${install_command}
# Build by-products of the install are not the agent's changes: keep them out of `git status`.
RUN printf '*.egg-info/\n__pycache__/\nbuild/\n.eggs/\n' >> .git/info/exclude
${bytecode_step}