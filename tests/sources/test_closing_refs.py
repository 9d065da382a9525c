"""Closing keywords as GitHub documents them ("Linking a pull request to an issue using a keyword")."""

from repo2env.sources.closing_refs import IssueRef, closing_refs


def test_keywords_forms_and_order():
    body = ("Fixes #12.\nThis also closes: other/lib#3 and Resolved https://github.com/org/repo/issues/40\n"
            "fix #12 again; see #99 (not closing); prefix#5 is not one")
    assert closing_refs(body, "org", "repo") == [
        IssueRef("org", "repo", 12), IssueRef("other", "lib", 3), IssueRef("org", "repo", 40)]


def test_no_keyword_no_reference():
    assert closing_refs("Related to #4. Fixing things. unfixes #5", "o", "r") == []
    assert closing_refs("", "o", "r") == []
