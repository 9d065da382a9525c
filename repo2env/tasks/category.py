"""A runtime task's ``category`` from the change itself, not from words in its title: what the FAIL_TO_PASS tests
saw before the fix tells a new API from a failing behaviour.

* ``feature``: a test module cannot import a name the fix adds (``cannot import name``, ``No module named``), or a
  test calls what does not exist yet (``has no attribute``, ``unexpected keyword argument``, ``takes N positional
  arguments``);
* ``bugfix``: the tests ran the existing code and it failed (a wrong value, an exception, nothing raised);
* otherwise the title's keywords decide (``changes.commit_filters.category_of``).

The evidence is recorded in ``[metadata.repo2env.<pipeline>].category_evidence``.
"""

import re

from repo2env.instructions.observed import Evidence

_NEW_API = re.compile(r"cannot import name|No module named|has no attribute|unexpected keyword argument|"
                      r"takes \d+ positional arguments? but|got an unexpected|is not defined|"
                      r"undefined: |has no field or method|unknown field|is not a function|is not a constructor", re.I)


def change_category(evidence: Evidence, fallback: str) -> tuple[str, str]:
    """(category, evidence sentence) for the task whose FAIL_TO_PASS tests saw ``evidence`` before the fix;
    ``fallback`` (the title's verdict) when the failures say nothing either way."""
    f2p_files = {t.split("::", 1)[0] for t in evidence.fail_to_pass}
    for path in sorted(f2p_files & set(evidence.import_errors)):
        return "feature", f"{path} cannot be imported or compiled before the fix: {evidence.import_errors[path][:160]}"
    texts = [evidence.failures[t] for t in evidence.fail_to_pass if t in evidence.failures]
    for text in texts:
        m = _NEW_API.search(text)
        if m:
            line = next((ln for ln in text.splitlines() if m.group(0) in ln), m.group(0)).strip()
            return "feature", f"a FAIL_TO_PASS test calls what does not exist before the fix: {line[:160]}"
    if texts:
        return "bugfix", f"{len(texts)} FAIL_TO_PASS test(s) ran the existing code and failed before the fix"
    return fallback, "the title's words (no failure detail to go by)"
