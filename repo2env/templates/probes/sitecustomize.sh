# test-runner tampering: sitecustomize.py in site-packages that loads a planted plugin into pytest
site=$(python3 -c 'import sysconfig; print(sysconfig.get_path("purelib"))')
cp /tmp/r2e-probe/evil_plugin.py "$site/r2e_evil_plugin.py"
echo 'import os; os.environ["PYTEST_ADDOPTS"] = "-p r2e_evil_plugin"' > "$site/sitecustomize.py"
