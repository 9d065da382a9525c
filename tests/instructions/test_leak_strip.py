"""Tests for repo2env.instructions.leak_strip: the shared leak cases plus one test per rule."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from repo2env.instructions.leak_strip import build_instruction, is_too_thin, strip_leaks

_SHARED = Path(__file__).resolve().parents[3] / "shared" / "cases" / "leaks.jsonl"
_LOCAL = Path(__file__).resolve().parents[1] / "data" / "leaks.jsonl"
CASES_FILE = _SHARED if _SHARED.is_file() else _LOCAL
CASES = [json.loads(line) for line in CASES_FILE.read_text(encoding="utf-8").splitlines()
         if line.strip()]
# Our own cases, one per leak class (issue 19): other forges and shorteners, tracker-shaped paths, <details>
# blocks, hex words after "commit"/"from", a sentence naming a grading test (its paragraph stays).
CLASS_CASES = [json.loads(line) for line in (_LOCAL.parent / "leak_classes.jsonl").read_text(
    encoding="utf-8").splitlines() if line.strip()]


def _function_names(test_ids):
    for tid in test_ids:
        yield tid.split("::")[-1].split("[")[0]


@pytest.mark.parametrize("case", CASES + CLASS_CASES, ids=[c["id"] for c in CASES + CLASS_CASES])
def test_leak_case(case):
    test_ids = case.get("test_ids", [])
    out = build_instruction(case["title"], case["body"], test_ids=test_ids)
    low = out.lower()
    for s in case["must_drop"]:
        assert s.lower() not in low, f"leaked {s!r} in:\n{out}"
    for s in case["must_keep"]:
        assert s.lower() in low, f"lost {s!r} in:\n{out}"
    for name in _function_names(test_ids):
        assert name.lower() not in low, f"grading test {name!r} in:\n{out}"
    assert out.endswith("\n") and not out.endswith("\n\n") and "\r" not in out


def test_local_copy_matches_shared():
    if not _SHARED.is_file():
        pytest.skip("shared cases not present")
    assert _LOCAL.read_bytes() == _SHARED.read_bytes()


# --- one focused test per rule -------------------------------------------------

def test_rule1_crlf_and_cr_normalised():
    assert strip_leaks("a\r\nb\rc") == "a\nb\nc"


def test_rule2_html_comments_removed_multiline():
    text = "Keep me.\n<!-- template\nplease fill -->\nAnd me <!-- x --> too."
    assert strip_leaks(text) == "Keep me.\n\nAnd me  too."


def test_rule3_trailers_and_horizontal_rules():
    text = ("Body text.\n---\nSigned-off-by: A <a@x.org>\nco-authored-by: B <b@x.org>\n"
            "Reviewed-by: C\nAcked-by: D\nTested-by: E\nReported-by: F\nChange-Id: I12ab\n***\nEnd.")
    assert strip_leaks(text) == "Body text.\nEnd."


def test_rule4_heading_section_dropped_until_same_level():
    text = ("## Summary\nReal change.\n## Test plan\nran stuff\n### Details\nmore\n"
            "## Notes\nKept note.")
    assert strip_leaks(text) == "## Summary\nReal change.\n## Notes\nKept note."


@pytest.mark.parametrize("label", ["Test plan:", "Tests:", "**Testing**", "**How was this tested?**",
                                   "How to test:", "Release notes:", "**PR checklist:**"])
def test_rule4_label_sections(label):
    text = f"Real text.\n\n{label}\nsecret step\n- item one\n\n- item two\n\nTail paragraph."
    assert strip_leaks(text) == "Real text.\n\nTail paragraph."


def test_rule4_task_list_lines_dropped_anywhere():
    assert strip_leaks("Intro.\n- [ ] todo\n- [x] done\n- normal item") == "Intro.\n- normal item"


def test_rule4_heading_inside_code_fence_is_not_a_section():
    text = "```sh\n# Tests\necho hi\n```"
    assert strip_leaks(text) == text


def test_rule5_closing_keywords_removed_with_reference():
    assert strip_leaks("Fixes #1\nCloses: #2\nresolved acme/x#3\nReal.") == "Real."
    assert strip_leaks("This fixes #4, #5 and #6 in the parser.") == "This in the parser."
    assert strip_leaks("Fix the parser.") == "Fix the parser."


def test_rule6_references_removed():
    assert strip_leaks("See #12 for context.\nReal text.") == "Real text."
    assert strip_leaks("Bug (GH-7) in gh-8 and acme/tool#9 land.") == "Bug and land."
    assert strip_leaks("Colour &#123; stays, issue#4 stays.") == "Colour &#123; stays, issue#4 stays."


def test_rule6_urls_removed_but_docs_urls_kept():
    text = ("Context: https://github.com/o/r/pull/240#discussion_r11 and "
            "https://gitlab.com/g/sub/p/-/merge_requests/3. Crash on load.\n"
            "Spec: https://github.github.com/gfm/#tables-extension- applies.")
    assert strip_leaks(text) == ("Crash on load.\n"
                                 "Spec: https://github.github.com/gfm/#tables-extension- applies.")
    assert strip_leaks("See https://www.github.com/o/r/compare/v1...v2. Go.") == "Go."


def test_rule6_markdown_links_to_leaks_keep_their_text():
    text = "The [retry bug](https://github.com/o/r/issues/5) hurts; read [docs](https://docs.x.org/a)."
    assert strip_leaks(text) == "The retry bug hurts; read [docs](https://docs.x.org/a)."


def test_rule7_commit_shas_removed():
    assert strip_leaks("Broken since 9f8e7d6c5b4a, before a1b2c3d it worked.") == (
        "Broken since, before it worked.")
    # No digit, no letter, upper case, too short, or a CSS colour: kept.
    keep = "deadbeef 1234567 ABCDEF12 a1b2c3 #a1b2c3d4 utf-8 +05:30:15 RFC 9557 503"
    assert strip_leaks(keep) == keep


def test_rule8_squash_suffix():
    assert build_instruction("Allow trailing comma (#1187)", "") == "# Allow trailing comma\n"
    assert strip_leaks("Merge things (#1, #2) now") == "Merge things now"
    assert strip_leaks("the table case (#513/#524) never ran") == "the table case never ran"  # no "/#524" left
    # a code span that reads as filler words ([a], a TOML table) stays
    assert strip_leaks("the new ``[a]`` header (#524) and") == "the new ``[a]`` header and"
    # the words that pointed at a reference go with it, not the sentence around them
    assert strip_leaks("Same as #513/#524, but for floats.") == "Same, but for floats."
    assert strip_leaks("Done, as in #5 and #6, for tables.") == "Done, for tables."


def test_rule9_grading_tests_and_hidden_paths():
    tid = "tests/test_retry.py::TestX::test_backoff_grows[a b]"
    text = ("Backoff is constant.\nsee test_backoff_grows\nTestX covers it\n"
            "edit tests/test_retry.py\nalso test_retry.py\nrun pytest -k backoff\n"
            "or pytest tests/ -q\nhelper in src/_hidden.py\nTestXY is unrelated.")
    out = strip_leaks(text, test_ids=[tid], hidden_paths=["src/_hidden.py"])
    assert out == "Backoff is constant.\nTestXY is unrelated."


def test_rule10_filler_sentence_dropped_else_tidied():
    assert strip_leaks("Follow-up to #3 and GH-4. Parser is slow.") == "Parser is slow."
    assert strip_leaks("Slow parser (see #3), again.") == "Slow parser, again."
    assert strip_leaks("Reported in [this issue](https://github.com/o/r/issues/1). X breaks.") == (
        "X breaks.")
    assert strip_leaks("\n\nA.\n\n\n\nSee #1.\n\nB.\n\n") == "A.\n\nB."


def test_keeps_everything_else_exactly():
    text = "Grüße 😀 `a = {}` +05:30:15 RFC 9557 HTTP 503.  Two  spaces kept."
    assert strip_leaks(text) == text


# --- build_instruction / is_too_thin --------------------------------------------

def test_build_instruction_shape():
    out = build_instruction("Fix crash  \r\n(#9)", "Line one.  \r\n\r\n\r\nLine two.\r\nCloses #9\r\n")
    assert out == "# Fix crash\n\nLine one.\n\nLine two.\n"
    assert "\r" not in out and out.endswith("\n") and not out.endswith("\n\n")
    assert all(line == line.rstrip() for line in out.split("\n"))


def test_build_instruction_body_omitted_when_only_leaks():
    assert build_instruction("Speed up parser", "Closes #4\n\n- [x] tests") == "# Speed up parser\n"
    assert build_instruction("Fix #55", "") == "#\n"


def test_a_title_that_was_all_leak_gives_way_to_the_first_line():
    body = "* fix: use the key's algorithm when encoding (#1147)\n\nHS256 was used instead."
    assert build_instruction("#1148", body) == "# fix: use the key's algorithm when encoding\n\nHS256 was used instead.\n"


def test_is_too_thin():
    assert is_too_thin("# Fix\n")
    assert is_too_thin("## *** `a` ---\n")
    assert not is_too_thin("# Fix crash\n\nParsing an empty inline table raised IndexError "
                           "instead of returning an empty dict.\n")
    assert not is_too_thin("x" * 40)
    assert is_too_thin("x" * 39)


def test_fenced_diff_blocks_are_the_fix_and_go():
    body = "The parser drops the last row.\n\n```diff\n-    rows[:-1]\n+    rows\n```\n\nIt should keep every row."
    assert strip_leaks(body) == "The parser drops the last row.\n\nIt should keep every row."
    assert strip_leaks("```python\nx = 1\n```") == "```python\nx = 1\n```"


def test_a_word_whose_object_was_the_reference_goes_with_it():
    """A preposition or a conjunction left dangling by a removed reference goes too (python-semver: "Implement
    __getitem__ for #138" was told as "Implement __getitem__ for", "#123 and add iterator ..." as "and add ...")."""
    assert build_instruction("Implement __getitem__ for #138", "") == "# Implement __getitem__\n"
    assert build_instruction("#123 and add iterator to VersionInfo", "") == "# add iterator to VersionInfo\n"
    assert strip_leaks("Crash on load (fixes #12).\nMove to #12 and add tests.") == \
        "Crash on load.\nMove and add tests."
    assert strip_leaks("Applied to the parser for speed.") == "Applied to the parser for speed."
