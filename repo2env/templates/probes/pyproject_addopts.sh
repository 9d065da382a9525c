# test-runner tampering: addopts in pyproject.toml and setup.cfg loading a planted plugin
cp /tmp/r2e-probe/evil_plugin.py /workspace/r2e_evil_plugin.py
if [ -f /workspace/pyproject.toml ] && ! grep -q 'tool.pytest.ini_options' /workspace/pyproject.toml; then
  printf '\n[tool.pytest.ini_options]\naddopts = "-p r2e_evil_plugin"\n' >> /workspace/pyproject.toml
fi
printf '\n[tool:pytest]\naddopts = -p r2e_evil_plugin\n' >> /workspace/setup.cfg
