"""repo2env/changes/commit_filters.py: message and change rules of commit_runtime, with reason codes."""

from datetime import UTC, datetime

import pytest

from repo2env.changes.commit_filters import (
    CommitFilterConfig,
    conventional_type,
    message_skip_reason,
    strip_type,
    touches_test_functions,
)
from repo2env.core.records import CommitCandidate


def _commit(subject, body="", author="Dev <dev@example.org>", merge=False):
    now = datetime(2025, 1, 1, tzinfo=UTC)
    return CommitCandidate(sha="a" * 40, parent_sha="b" * 40, subject=subject, body=body, author=author,
                           authored_at=now, committed_at=now, merge=merge)


@pytest.mark.parametrize("subject, body, author, merge, expected", [
    ("Fix chunk() dropping the last chunk", "", "Dev <d@x>", False, None),
    ("fix(core): keep the last chunk", "", "Dev <d@x>", False, None),
    ("Make chunk() keep every item", "Closes #12", "Dev <d@x>", False, None),
    ("Merge branch 'side'", "", "Dev <d@x>", True, "merge_commit"),
    ("Fix a crash in the parser", "", "renovate[bot] <bot@renovateapp.com>", False, "bot_author"),
    ("Fix the crash", "", "pre-commit-ci <66853113+pre-commit-ci@users.noreply.github.com>", False, "bot_author"),
    ("fix: oops", "", "Dev <d@x>", False, "message_too_short"),
    ("refactor: fix naming of bounds", "", "Dev <d@x>", False, "not_a_fix_type"),
    ("docs(readme): fix a typo", "", "Dev <d@x>", False, "not_a_fix_type"),
    ("Update internals for the next release", "", "Dev <d@x>", False, "no_fix_signal"),
])
def test_message_rules(subject, body, author, merge, expected):
    reason = message_skip_reason(_commit(subject, body, author, merge), CommitFilterConfig())
    assert (reason.value if reason else None) == expected


def test_configurable_authors_and_types():
    config = CommitFilterConfig(exclude_authors=("release-robot",), include_types=("refactor",))
    assert message_skip_reason(_commit("Fix a crash in parse", author="renovate[bot] <b@x>"), config) is None
    assert message_skip_reason(_commit("Fix a crash in parse", author="Release-Robot <r@x>"), config).value == "bot_author"
    assert message_skip_reason(_commit("refactor: simplify the parser loop"), config) is None


def test_conventional_types():
    assert conventional_type("feat(api)!: drop v1") == "feat" and conventional_type("Fix: x") == "fix"
    assert conventional_type("Fix the parser") is None
    assert strip_type("fix(parser): Keep trailing commas") == "Keep trailing commas"
    assert strip_type("Keep trailing commas") == "Keep trailing commas"


NEW_TEST = """\
--- a/tests/test_x.py
+++ b/tests/test_x.py
@@ -3,1 +3,5 @@ def test_old():
     assert f(1) == 1
+
+
+def test_new():
+    assert f(2) == 2
"""
EDITED_TEST = """\
--- a/tests/test_x.py
+++ b/tests/test_x.py
@@ -10,2 +10,2 @@ import pytest
 def test_percent():
-    assert percent(1, 4) == 25
+    assert percent(2, 3) == 67
"""
EDITED_METHOD = """\
--- a/tests/test_x.py
+++ b/tests/test_x.py
@@ -20,2 +20,2 @@ class TestParser:
         parser = Parser()
-        assert parser.parse("") is None
+        assert parser.parse("") == []
"""
HELPER_ONLY = """\
--- a/tests/helpers.py
+++ b/tests/helpers.py
@@ -1,2 +1,2 @@
 import json
-SAMPLE = [1, 2]
+SAMPLE = [1, 2, 3]
"""


def test_test_function_changes():
    assert touches_test_functions(NEW_TEST) and touches_test_functions(EDITED_TEST)
    assert touches_test_functions(EDITED_METHOD)
    assert not touches_test_functions(HELPER_ONLY) and not touches_test_functions("")


def test_category_of_a_change():
    from repo2env.changes.commit_filters import category_of

    assert category_of("Fix chunk() dropping the last chunk") == "bugfix"
    assert category_of("fix(core): keep items") == "bugfix"
    assert category_of("Add slugify for report names") == "feature"
    assert category_of("Raise ValueError when dividing by zero", "divide(1, 0) leaked.\n\nFixes #7") == "bugfix"
