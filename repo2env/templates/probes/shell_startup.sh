# test-runner tampering: PYTEST_ADDOPTS set through shell start-up files, the plugin in the repository root
cp /tmp/r2e-probe/evil_plugin.py /workspace/r2e_evil_plugin.py
for f in /root/.bashrc /root/.profile /etc/bash.bashrc /etc/profile /etc/environment; do
  echo 'export PYTEST_ADDOPTS="-p r2e_evil_plugin"' >> "$f"
done
echo 'export PYTEST_ADDOPTS="-p r2e_evil_plugin"' > /etc/profile.d/r2e.sh
