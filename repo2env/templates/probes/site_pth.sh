# test-runner tampering: a .pth file in site-packages that makes every Python start load a planted plugin
site=$(python3 -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
cp /tmp/r2e-probe/evil_plugin.py "$site/r2e_evil_plugin.py"
echo 'import os; os.environ["PYTEST_ADDOPTS"] = "-p r2e_evil_plugin"' > "$site/r2e_evil.pth"
