"""repo2env/instructions/leak_audit.py: one test per rule, and span removal."""

from repo2env.instructions.leak_audit import AuditContext, added_lines, audit, remove_findings, rules_fired

CTX = AuditContext(test_ids=["tests/test_sizes.py::TestParse::test_units[1 KB]"],
                   hidden_paths=["tests/test_sizes.py", "tests/conftest.py"],
                   gold_added_lines=["    multiplier = UNITS[suffix.upper()]", "    return int(number) * multiplier"],
                   web_url="https://ghe.example.com/acme/sizes")


def fired(text, ctx=CTX):
    return rules_fired(audit(text, ctx))


def test_clean_text_has_no_findings():
    assert audit("# Parse sizes\n\nparse_size('1 KB') raises ValueError; it should return 1024.\n", CTX) == []


def test_rule_test_name():
    assert fired("Make test_units pass.") == ["test_name"]
    assert fired("The TestParse suite fails.") == ["test_name"]
    assert fired("my_test_units_helper is fine") == []


def test_rule_test_path():
    assert fired("See tests/test_sizes.py for examples.") == ["test_name", "test_path"]  # its stem too
    assert fired("test_sizes.py shows it") == ["test_name", "test_path"]
    # the module as Python spells it, e.g. in an exception message's qualified name
    assert fired("tests.test_sizes.Box is not compatible") == ["test_name", "test_path"]
    assert fired("the test_sizes module") == ["test_name"]
    assert fired("conftest.py is shared") == []


def test_rule_repo_url():
    assert fired("Reported at https://github.com/acme/sizes/issues/4.") == ["repo_url"]
    assert fired("Mirror: https://ghe.example.com/acme/sizes/blob/main/README.md") == ["repo_url"]
    assert fired("Units follow https://en.wikipedia.org/wiki/Kibibyte") == []


def test_rule_sha():
    assert fired("Broken since 4be1c0ffee9d.") == ["sha"]
    assert fired("colour #c0ffee and the word facade stay") == []


def test_rule_issue_ref():
    assert fired("Same as #41.") == ["issue_ref"] and fired("like acme/other#3") == ["issue_ref"]
    assert fired("see GH-12") == ["issue_ref"]


def test_rule_gold_overlap():
    assert fired("Add `multiplier = UNITS[suffix.upper()]` first.") == ["gold_overlap"]
    assert fired("The result must be the number times the unit multiplier.") == []
    short = AuditContext(gold_added_lines=["x = 1"], ngram=8)
    assert fired("Set x = 1 first.", short) == []


def test_remove_findings_keeps_the_rest():
    text = "# Sizes\n\nSee #41 and tests/test_sizes.py.\nparse_size('1 KB') must be 1024.\n"
    assert remove_findings(text, audit(text, CTX)) == "# Sizes\n\nparse_size('1 KB') must be 1024.\n"


def test_remove_findings_leaves_whole_sentences():
    ctx = AuditContext(gold_added_lines=["    return int(number) * multiplier + offset"])
    text = ("# Sizes\n\nThe same fix as in #12, applied to floats. Now `int(number) * multiplier + offset` "
            "is used. Parsing '1 KB' gives 1000.\n")
    assert remove_findings(text, audit(text, ctx)) == ("# Sizes\n\nThe same fix, applied to floats. Parsing '1 KB' "
                                                       "gives 1000.\n")


def test_added_lines_of_a_patch():
    patch = "--- a/s.py\n+++ b/s.py\n@@ -1,1 +1,2 @@\n x = 1\n+y = 2\n"
    assert added_lines(patch) == ["y = 2"] and added_lines("not a patch") == []


def test_a_copy_cut_into_code_spans_or_wrapped_over_two_lines_is_still_a_copy():
    """Markdown's code quotes do not break a run (`initial=1`, `max=60`, ... is the test's line), and the added
    lines are read one after the other with comment marks left out (a comment wrapped over two lines of the fix
    is one run)."""
    ctx = AuditContext(test_added_lines=["    r = retry(wait=wait(initial=1, max=60, jitter=1, min=5))"],
                       gold_added_lines=["    # a sub-table header such as", "    # [fruit.apple.texture] ends it"])
    assert fired("Call it with `initial=1`, `max=60`, `jitter=1` and `min=5`.", ctx) == ["gold_overlap"]
    assert fired("Call it with `initial=1` and `max=60` and `jitter=1` and `min=5`.", ctx) == []
    assert fired("A sub-table header such as [fruit.apple.texture] is lost.", ctx) == ["gold_overlap"]


def test_a_helper_the_test_patch_defines_is_a_test_name():
    ctx = AuditContext(test_added_lines=["def my_call(x):", "    return x", "class FakeClock:", "def setup():"])
    assert fired("The sync test's my_call fails.", ctx) == ["test_name"]
    assert fired("A FakeClock never ticks.", ctx) == ["test_name"]
    assert fired("The setup is wrong.", ctx) == []  # one plain word: the language's, not a needle


def test_a_copy_takes_its_whole_sentence_when_the_paragraph_is_wrapped_over_lines():
    """A sentence hard-wrapped over three lines goes whole (not its first lines only, leaving the rest mid-way);
    "e.g." ends no sentence, and the next sentence and list items stay."""
    ctx = AuditContext(gold_added_lines=["        multiplier = UNITS[suffix.upper()]"])
    text = ("# Sizes\n\nParsing a size (e.g. with multiplier = UNITS[suffix.upper()] in\nthe loop) kept the unit,\n"
            "which broke kB. The rest\nis fine.\n\n- an item\n")
    assert remove_findings(text, audit(text, ctx)) == "# Sizes\n\nThe rest\nis fine.\n\n- an item\n"


def test_a_data_file_quoted_as_a_strings_repr_is_a_copy():
    """``\\n`` in a repr separates like the line break it stands for: a data file of short lines quoted whole
    copies its lines."""
    ctx = AuditContext(test_added_lines=["a = {", "  b = 1, c = 2,", "}"])
    assert fired("Calling `loads('a = {\\n  b = 1, c = 2,\\n}')` raises an error.", ctx) == ["gold_overlap"]
    assert fired("Calling `loads('a = {\\n  b = 1, …= 2,\\n}')` raises an error.", ctx) == []


def test_a_helper_named_by_a_capitalised_plain_word_is_found_with_its_case_only():
    """A test helper class ``Parser`` is a needle as written; the prose word ("the parser", "a local object")
    is not it (an instruction that used the word would lose its sentence)."""
    ctx = AuditContext(test_added_lines=["class Parser:", "    pass", "def make_table(rows):"])
    assert audit("The parser drops the last key of a table.", ctx) == []
    assert [f.text for f in audit("Build it with `Parser()` first.", ctx)] == ["Parser"]
    assert [f.text for f in audit("Call MAKE_TABLE on it.", ctx)] == ["MAKE_TABLE"]  # not a plain word: any case


def test_a_constant_the_test_patch_assigns_at_module_level_is_a_test_name():
    """A held-out instruction named ``_ANCHOR_TB_STR``, a module constant only the hidden test file defines: the
    names the test patch assigns at column 0 are needles like its functions (an indented one is a local)."""
    ctx = AuditContext(test_added_lines=['_ANCHOR_TB_STR = """\\', "    frames = 1", "EXPECTED = [1]"])
    assert fired("`ParsedException.from_string(_ANCHOR_TB_STR).frames` is wrong.", ctx) == ["test_name"]
    assert fired("The frames are wrong.", ctx) == []
    assert fired("It is not what was expected.", ctx) == []  # EXPECTED, all capitals: its own case only


def test_a_copy_with_markdown_emphasis_is_still_a_copy_and_code_stars_still_count():
    """sqlparse-332: the PR text said "the component after the last dot", the fix's comment "the component after
    the *last* dot": emphasis marks do not break a run; a multiplication's ``*`` is a token still."""
    ctx = AuditContext(gold_added_lines=["    # a.b.c -> real name is the component after the *last* dot"])
    assert fired("The object name is the component after the last dot.", ctx) == ["gold_overlap"]
    assert fired("The object **name** is the component after the _last_ dot.", ctx) == []  # `_last_` is a word
    ctx = AuditContext(gold_added_lines=["    return int(number) * multiplier + offset"])
    assert fired("Now int(number) multiplier + offset is used.", ctx) == []
    assert fired("Now `int(number) * multiplier + offset` is used.", ctx) == ["gold_overlap"]
