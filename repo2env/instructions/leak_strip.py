"""The deterministic instruction: a pull-request / commit title+body with its leaks stripped.

The agent solving the task must not be able to find the fix, the PR, or the
grading tests from the text, so we strip references (issue/PR numbers, GitHub
and GitLab URLs, commit SHAs), closing keywords, trailers, process boilerplate
sections (test plans, checklists, ...) and every line naming a grading test.
Everything else is kept byte-for-byte (non-ASCII, inline code, numbers).
Stdlib only.
"""
from __future__ import annotations

import re
from typing import Sequence

__all__ = ["strip_leaks", "build_instruction", "is_too_thin", "grading_test_needles", "REFERENCES", "SHA"]

# --- patterns ---------------------------------------------------------------

# URL tail: stop before whitespace/brackets/quotes and never end in sentence
# punctuation, so "see <url>." keeps its full stop.
_TAIL = r"""(?:[/#?][^\s<>()\[\]"'`]*[^\s<>()\[\]"'`.,;:!?])?"""
_GH_URL = (r"https?://(?:www\.)?github\.com/[\w.-]+/[\w.-]+/"
           r"(?:issues|pull|commit|commits|compare|discussions)\b" + _TAIL)
_GL_URL = (r"https?://(?:www\.)?gitlab\.com/[\w.-]+(?:/[\w.-]+)+?/(?:-/)?"
           r"(?:issues|merge_requests|commit|commits|compare)\b" + _TAIL)
# Any URL on a code-hosting or link-shortening host (where the fix, the PR or the tests live, or a redirect to
# them), and any URL whose path has the shape of a pull request, an issue, a commit or a bug tracker entry.
_CODE_HOSTS = (r"(?:[\w-]+\.)*(?:github\.com|githubusercontent\.com|gitlab\.com|"
               r"gitlab\.[\w.-]+|bitbucket\.org|codeberg\.org|sr\.ht|gitee\.com|gitea\.[\w.-]+|"
               r"git\.[\w.-]+|sourceforge\.net|launchpad\.net|bit\.ly|t\.co|tinyurl\.com|goo\.gl|ow\.ly|is\.gd|"
               r"buff\.ly|lnkd\.in|rb\.gy|shorturl\.at|"
               # coding agents' session pages: the transcript of the fix being written
               r"claude\.ai|chatgpt\.com|chat\.openai\.com|gemini\.google\.com|copilot\.microsoft\.com|"
               r"devin\.ai|cursor\.com|v0\.dev|bolt\.new|jules\.google\.com)")
# (GitHub's own documentation sites are documentation, not code hosting.)
_HOST_URL = (r"https?://(?!(?:docs|github|guides|help|education|skills)\.github\.com)" + _CODE_HOSTS
             + r"(?=[/:?#\s]|$)" + _TAIL)
_SHAPED_URL = (r"https?://[\w.-]+(?::\d+)?/(?:[^\s<>()\[\]\"'`]*/)?"
               r"(?:pulls?|issues?|commits?|merge_requests|compare|changeset|bugs?|tickets?|show_bug\.cgi|-)\d*"
               r"(?=[/?#=\s<>()\[\]\"'`.,;:!]|$)(?:[/?#=][^\s<>()\[\]\"'`]*[^\s<>()\[\]\"'`.,;:!?])?")
_URL = f"(?:{_GH_URL}|{_GL_URL}|{_HOST_URL}|{_SHAPED_URL})"
_XREPO = r"(?<![\w/])[\w.-]+/[\w.-]+#\d+\b"      # owner/repo#123
_HASHREF = r"(?<![\w&#/])#\d+(?:/#\d+)*\b"        # #123, #513/#524 (not &#123; entities)
_GHREF = r"(?<![\w-])gh-\d+\b"                    # GH-123 / gh-123
_WORDREF = r"\b(?:issues?|pr|pull request|pull|bug|ticket)\s+\d+\b(?:\s*:)?"  # "Issue 1214:", "PR 12"
_REF = f"(?:{_URL}|{_XREPO}|{_HASHREF}|{_GHREF}|{_WORDREF})"

_MD_LINK = re.compile(r"\[([^\]]*)\]\(\s*" + _URL + r"""(?:\s+"[^"]*")?\s*\)""", re.I)
_SQUASH = re.compile(r"\s*\(\s*#\d+(?:\s*[,/]\s*#\d+)*\s*\)")
_CLOSING = re.compile(
    r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b\s*:?\s*"
    + _REF + r"(?:\s*(?:,|\band\b)\s*" + _REF + ")*", re.I)
_REFS = re.compile(_REF, re.I)
REFERENCES = _REFS  # issue/PR/commit URLs on GitHub/GitLab, owner/repo#N, #N, GH-N (used by leak_audit too)
# Lowercase hex word of 7-40 chars with at least one digit and one letter;
# '#' excluded so CSS colours are not mistaken for SHAs.
_SHA = re.compile(r"(?<![\w#])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b")
SHA = _SHA
# Any hex word of 7-40 characters (upper case too) after a word that introduces a commit.
_SHA_AFTER = re.compile(r"(\b(?:commit|commits|from|see|cherry-picked|cherry picked|in|revert|reverts|reverted|"
                        r"at|since|of)\s+)[0-9a-fA-F]{7,40}\b", re.I)
_REMOVERS = (_CLOSING, _SQUASH, _REFS, _SHA)

_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
# Collapsible blocks: bots' reports, release notes, dependency changelogs.
_DETAILS = re.compile(r"<details\b.*?(?:</details\s*>|\Z)", re.S | re.I)
# A fenced diff/patch block in a PR body is the fix itself.
_DIFF_FENCE = re.compile(r"^(```|~~~)[ \t]*(diff|patch|udiff)\b.*?^\1[ \t]*$\n?", re.S | re.M | re.I)
_TRAILER = re.compile(r"^\s*(?:signed-off-by|co-authored-by|reviewed-by|acked-by|"
                      r"tested-by|reported-by|change-id)\s*:.*$", re.I)
# Lines bots and squash merges add: pre-commit.ci's auto-fix commits and their "for more information" line,
# dependency bots, and the sub-commit bullets that only update the changelog.
_BOT_LINE = re.compile(r"pre-commit\.ci|\[bot\]|\bdependabot\b|\brenovate\b|\bauto fixes from\b|"
                       r"^\s*[-*]\s+(?:update[sd]?|add(?:ed)?)\s+(?:the\s+)?(?:a\s+)?(?:changelog|changes|news|history)"
                       r"(?:[./\\][\w./\\-]*)?(?:\s+(?:entry|fragment|file))?\s*$", re.I)  # also changelog.d/12.md
_HRULE = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_TASK = re.compile(r"^\s*[-*+]\s+\[[ xX]\]")
_PYTEST_CMD = re.compile(r"\bpytest\s+(?:-k\b|tests?/)", re.I)
_FENCE = re.compile(r"^\s{0,3}(?:```|~~~)")
_MD_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_BOLD_LABEL = re.compile(r"^\s*(?:\*\*|__)([^*_]{1,60}?)(?:\*\*|__)\s*:?\s*$")
_COLON_LABEL = re.compile(r"^\s*([A-Za-z][^:.!?`]{0,40}?)\s*[:?]\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])(\s+)")
_WORD = re.compile(r"[^\W_]+(?:['_-][^\W_]+)*")

BOILERPLATE_TITLES = frozenset({
    "tests added", "test plan", "testing", "tests", "how to test",
    "how was this tested", "checklist", "changelog", "release notes",
    "screenshots", "pr checklist"})
# Words that carry no task information once the reference they pointed at is
# gone ("See #12 for context." -> drop). Beyond the brief's list we add words
# like "issue"/"pr"/"here" so "Reported in [this issue](url)." also goes.
FILLER = frozenset("""
see and or also for context part of follow up follow-up to related ref refs
upstream fix the in this at by with a an is was via from per as discussed
mentioned reported cc issue issues pr prs pull request commit commits here
fixes fixed closes closed resolves resolved details more info information background discussion thread
link below above original cherry-picked cherry picked backport backported backports ported too
revert reverts reverted reverting reapplies reapplied
""".split())
_FILLER_GROUP = re.compile(
    r"(?<!`)[(\[<]\s*(?:(?:%s)\b[\s,;:]*)*[)\]>](?!`)" % "|".join(  # never code: ``[a]``
        re.escape(w) for w in sorted(FILLER, key=len, reverse=True)), re.I)


# --- section and line removal -------------------------------------------------

def _heading(line: str) -> tuple[int, str] | None:
    """(level, title) for a markdown heading (1-6) or a bare label line (7)."""
    if m := _MD_HEADING.match(line):
        return len(m.group(1)), m.group(2)
    if m := _BOLD_LABEL.match(line) or _COLON_LABEL.match(line):
        return 7, m.group(1)
    return None


def _is_boilerplate(title: str) -> bool:
    norm = " ".join(title.strip("*_ \t").rstrip(":?").strip("*_ ").lower().split())
    return norm in BOILERPLATE_TITLES


def _section_end(lines: list[str], start: int, level: int) -> int:
    """Index of the first line after the section opened at `start`."""
    fence, i = False, start + 1
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            fence = not fence
        elif not fence:
            h = _heading(line)
            # A '#' section ends at a heading of the same or higher level; a
            # bare label ends at any heading-like line.
            if h and (h[0] <= level if level < 7 else True):
                return i
            if level == 7 and not line.strip():
                nxt = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
                if nxt is None or not _LIST_ITEM.match(lines[nxt]):
                    return i
                i = nxt
                continue
        i += 1
    return i


def _drop_sections(lines: list[str]) -> list[str]:
    out, i, fence = [], 0, False
    while i < len(lines):
        line = lines[i]
        if _FENCE.match(line):
            fence = not fence
        elif not fence and (h := _heading(line)) and _is_boilerplate(h[1]):
            i = _section_end(lines, i, h[0])
            continue
        out.append(line)
        i += 1
    return out


_PLAIN_WORD = re.compile(r"[a-z]+")


_TEST_DEFINES = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|"
                           r"^\s*(?:export\s+)?(?:async\s+)?function\s+([A-Za-z_]\w*)|"
                           r"^\s*func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)|^\s*fn\s+([A-Za-z_]\w*)|"
                           r"^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)")  # a module-level name: _ANCHOR_TB_STR = """…


def test_helpers(test_lines: Sequence[str]) -> set[str]:
    """The functions and classes the test patch's added lines define (Python ``def``/``class``, JavaScript
    ``function``, Go ``func``, Rust ``fn``) and the names they assign at module level (a constant the tests read,
    ``_ANCHOR_TB_STR = ...``): the tests' own machinery, which an instruction never names (a
    ``test_`` name is a grading test's, already a needle). Names of 4 characters or fewer and dunder names are
    left out."""
    found = set()
    for line in test_lines:
        m = _TEST_DEFINES.match(line)
        name = next((g for g in m.groups() if g), None) if m else None
        if name and len(name) > 4 and not name.startswith("__"):
            found.add(name)
    return found


def grading_test_needles(test_ids: Sequence[str], hidden_paths: Sequence[str], allowed: Sequence[str] = (),
                         test_lines: Sequence[str] = ()):
    """(paths, names): substrings and whole words whose lines must go: each test id's path and names, the
    hidden paths, their file names, and a test module's dotted name (``tests.test_x``) and stem (``test_x``).
    Names that are one plain lowercase word (a Rust module path's ``tests``, ``all``, ``cases``; a subtest
    called ``empty``) are left out: they are the language's words, and stripping every sentence that uses
    them wipes statements that name no test. So are the ``allowed`` names: those the fix itself defines
    (``observed.evidence.interface_names``), the interface the task asks for, even when a test is named after
    it. ``test_lines``: the test patch's added lines, whose helpers (``test_helpers``) are needles too."""
    paths, names = set(), set(test_helpers(test_lines))
    for tid in test_ids:
        parts = tid.split("::")
        paths.add(parts[0])
        for part in parts[1:]:
            names.add(re.sub(r"\[.*$", "", part))
    paths.update(hidden_paths)
    # The bare file name ("test_retry.py") leaks as much as the full path;
    # skip ubiquitous ones that would wipe unrelated lines.
    for p in list(paths):
        base = p.rsplit("/", 1)[-1]
        if base and base not in {"__init__.py", "conftest.py"}:
            paths.add(base)
        if p.endswith(".py") and "test" in base.lower() and base not in {"__init__.py", "conftest.py"}:
            # the module as Python spells it: tests.test_x, test_x
            paths.add(p[:-3].replace("/", "."))
            names.add(base[:-3])
    keep = set(allowed)
    return {p.lower() for p in paths if p}, {n for n in names if n and n not in keep and not _PLAIN_WORD.fullmatch(n)}


def name_pattern(name: str) -> re.Pattern:
    """How a grading test's or test helper's name is found in text: as a whole word, any case; a capitalised
    plain word (a helper class ``Local``, ``Parser``) with its own case only, so that the prose word ("a local
    object", "the parser") is not taken for it."""
    flags = 0 if name[:1].isupper() and _PLAIN_WORD.fullmatch(name.lower()) else re.I
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)", flags)


def _leaks_test(line: str, paths: set[str], names: set[str]) -> bool:
    low = line.lower()
    if _PYTEST_CMD.search(line) or any(p in low for p in paths):
        return True
    return any(name_pattern(n).search(line) for n in names)


def _without_test_sentences(line: str, paths: set[str], names: set[str]) -> str | None:
    """``line`` without the sentences that name a grading test (the rest of the line and paragraph stays);
    None when nothing is left."""
    if not _leaks_test(line, paths, names):
        return line
    parts = _SENTENCE_SPLIT.split(line)
    kept = [parts[i] + (parts[i + 1] if i + 1 < len(parts) else "") for i in range(0, len(parts), 2)
            if not _leaks_test(parts[i], paths, names)]
    text = "".join(kept).rstrip()
    return text if text.strip() else None


# --- sentence-level reference removal -------------------------------------------

def _clean_sentence(s: str) -> str:
    """Tidy a sentence that lost a reference; '' when nothing useful is left."""
    for _ in range(2):  # nested leftovers like "((and ))" need a second pass
        s = _FILLER_GROUP.sub("", s)
    if all(w.lower() in FILLER for w in _WORD.findall(s)):
        return ""
    s = re.sub(r"(?<=\S) {2,}", " ", s)
    # a preposition whose object was the reference: "the fix as in #12, applied" -> "the fix, applied"
    # (after the conjunction of a list of references: "as in #5 and #6," -> "as in and," -> ",")
    s = re.sub(r"\s+(?:\b(?:and|or)\b|&)\s*(?=[,.;:!?)])", "", s, flags=re.I)  # a line may wrap after "and"
    s = re.sub(r"\s+\b(?:as in|like in|same as in|in|see|from|by|at|of|via|per|as|like|for|to|on|with|into|about|"
               r"regarding)\s*(?=[,.;:!?)]|$)", "", s, flags=re.I)  # "Implement __getitem__ for #138" -> "… __getitem__"
    s = re.sub(r"\s+\b(?:re|fix(?:es)?|fixed|close[sd]?|resolve[sd]?|address(?:es)?|refs?)\s*(?=[)]|$)", "", s,
               flags=re.I)  # "Crash on load (fixes #12)" -> "Crash on load"
    # a conjunction whose first member was the reference: "#123 and add iterator" -> "add iterator"
    s = re.sub(r"^\s*((?:[-*+>]\s+|#+\s+)?)(?:and|or|&|also)\s+", r"\1", s, flags=re.I)
    # and one left before a conjunction: "Move to #12 and add tests" -> "Move and add tests"
    s = re.sub(r"\s+\b(?:to|for|in|of|from|see|by|at|via|per|with|on)\s+(?=(?:and|or)\b)", " ", s, flags=re.I)
    s = re.sub(r"\s+([,.;:!?)\]])", r"\1", s)
    s = re.sub(r"([(\[])\s+", r"\1", s)
    s = re.sub(r"([,;:])(?:\s*[,;:])+", r"\1", s)
    return re.sub(r"^(\s*(?:[-*+>]\s+)?)[,;:]\s*", r"\1", s).rstrip()


def _strip_refs_line(line: str) -> str | None:
    """Line with references removed; None when the line became empty."""
    parts = _SENTENCE_SPLIT.split(line)
    out: list[str] = []
    for idx in range(0, len(parts), 2):
        sent = _MD_LINK.sub(r"\1", parts[idx])
        changed = sent != parts[idx]
        for pat in _REMOVERS:
            sent, n = pat.subn("", sent)
            changed = changed or n > 0
        sent, n = _SHA_AFTER.subn(r"\1", sent)  # the word stays ("from"), the hex word goes
        changed = changed or n > 0
        if changed:
            sent = _clean_sentence(sent)
        if sent.strip():  # a dropped sentence takes its separator with it
            out.extend([sent, parts[idx + 1] if idx + 1 < len(parts) else ""])
    text = "".join(out).rstrip() if out else ""
    if not text.strip():
        return None if line.strip() else line
    return text if text != line.rstrip() else line


_BULLET = re.compile(r"^\s*[-*+]\s+(.*)$")
_HOUSEKEEPING = re.compile(r"^(?:docs?\b|typos?\b|fix(?:ed)? typos?|lint|format(?:ting)?\b|reformat|rephrase|reword|align|"
                           r"clean ?up|address(?:ed)? (?:review|comments?|feedback)|review\b|wip\b|nits?\b|style\b|"
                           r"(?:fix|update|add|adjust|tweak)(?:ed)? (?:the )?(?:tests?|docs?|changelog|news)\b|"
                           r"(?:add|update)(?:ed)? (?:a )?(?:changelog|news) (?:entry|fragment)|news fragments?|"
                           r"changelog\b|merge (?:branch|remote)|bump\b|pre-commit|ruff\b|mypy\b|black\b|"
                           r"apply suggestions?|oops|more\b)", re.I)
SQUASH_LIST = 4  # bullet lines from which a body counts as a squash merge's list of commit subjects
HOUSEKEEPING_WORDS = 5  # a longer item that starts like housekeeping ("Align columns when ...") says what changed


def _drop_housekeeping(lines: list[str]) -> list[str]:
    """Drop list items that are commit-subject noise: short housekeeping (``HOUSEKEEPING_WORDS`` words or fewer:
    "Add docs", "fix typo", "Address review comments", "Fix news fragments", "ruff", ...) always; in a squash
    merge's list of subjects (``SQUASH_LIST`` items or more), also items of three words or fewer ("fix math",
    "be more explicit"), which say nothing of the behaviour."""
    bullets = [m.group(1) for ln in lines if (m := _BULLET.match(ln))]
    squash = len(bullets) >= SQUASH_LIST
    kept = []
    for line in lines:
        m = _BULLET.match(line)
        item = m.group(1).strip().rstrip(".") if m else ""
        words = len(_WORD.findall(item))
        if m and ((_HOUSEKEEPING.match(item) and words <= HOUSEKEEPING_WORDS) or (squash and words <= 3)):
            continue
        kept.append(line)
    return kept


def _collapse_blank_lines(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if not line.strip() and (not out or not out[-1].strip()):
            continue
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    return out


# --- public API -------------------------------------------------------------------

def strip_leaks(text: str, *, test_ids: Sequence[str] = (),
                hidden_paths: Sequence[str] = (), allowed_names: Sequence[str] = (),
                test_lines: Sequence[str] = ()) -> str:
    """Return `text` (str) with every leak removed; pure function, returns str.

    Rules, in order: CRLF/CR -> LF; HTML comments and fenced diff/patch blocks removed; trailer lines
    (Signed-off-by, Co-authored-by, ..., Change-Id), bots' lines (pre-commit.ci, dependabot, ``[bot]``,
    changelog-only squash bullets), horizontal rules and task list lines (`- [ ]`, `- [x]`) removed; housekeeping
    list items (``_drop_housekeeping``: "Add docs", "fix typo", a squash list's items of three words or fewer)
    removed; boilerplate sections (heading or
    bare label titled tests added / test plan / testing / checklist / ...)
    removed; `<details>` blocks removed; sentences naming a grading test (pytest node id
    `path::Class::func[p]`: its path, file name, class and function names) or a `hidden_paths` entry
    or a `pytest -k` / `pytest tests/...` command removed (the rest of their line stays); then per sentence:
    markdown links to such URLs reduced to their text, closing
    keywords with their reference, ` (#N)` squash suffixes, `#N`,
    `owner/repo#N`, `GH-N`, any URL on a code-hosting or link-shortening host or whose path has the shape of
    a pull request, issue, commit or bug, lowercase hex SHAs (7-40 chars, digit and letter) and any hex word
    of 7-40 characters after commit/from/see/cherry-picked/... removed. A
    sentence that lost a reference and holds only filler words is dropped,
    otherwise spacing/empty brackets are tidied. Lines that became empty are
    removed, blank runs collapse to one, leading/trailing blank lines go.
    Untouched lines are kept exactly.
    """
    text = _HTML_COMMENT.sub("", text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _DETAILS.sub("", text)
    text = _DIFF_FENCE.sub("", text)
    lines = [ln for ln in text.split("\n")
             if not (_TRAILER.match(ln) or _HRULE.match(ln) or _TASK.match(ln) or _BOT_LINE.search(ln))]
    lines = _drop_housekeeping(_drop_sections(lines))
    paths, names = grading_test_needles(test_ids, hidden_paths, allowed_names, test_lines)
    lines = [kept for ln in lines if (kept := _without_test_sentences(ln, paths, names)) is not None]
    stripped = [s for s in map(_strip_refs_line, lines) if s is not None]
    return "\n".join(_collapse_blank_lines(stripped)).strip("\n")


def build_instruction(title: str, body: str, *, test_ids: Sequence[str] = (),
                      hidden_paths: Sequence[str] = (), allowed_names: Sequence[str] = (),
                      test_lines: Sequence[str] = ()) -> str:
    """Return the instruction.md text (str) for a PR/commit `title` and `body`.

    Shape: '# <stripped title>\\n\\n<stripped body>\\n'; the body part is
    omitted when empty after `strip_leaks`. The title is flattened to one line; a title that is only a leak
    (e.g. "Fix #55") gives way to the body's first line when that is short, else yields '#\\n'. Guarantees:
    LF-only, no trailing spaces, at most one blank line in a row, ends in
    exactly one newline.
    """
    kw = {"test_ids": test_ids, "hidden_paths": hidden_paths, "allowed_names": allowed_names,
          "test_lines": test_lines}
    head = " ".join(strip_leaks(title, **kw).split())
    stripped_body = strip_leaks(body, **kw)
    text = f"# {head}" + (f"\n\n{stripped_body}" if stripped_body.strip() else "")
    lines = _collapse_blank_lines([ln.rstrip() for ln in text.split("\n")])
    return fill_empty_title("\n".join(lines) + "\n")


def fill_empty_title(text: str) -> str:
    """``text`` whose ``#`` title line was emptied (all leak) takes its first body line as the title when that
    line is short (at most 120 characters, list marker dropped); when the body starts with a section heading,
    the section's first statement (at most 160 characters) titles it; otherwise ``text`` unchanged."""
    head, _, rest = text.partition("\n")
    if head.strip() != "#":
        return text
    first, _, remainder = rest.strip("\n").partition("\n")
    first = _LIST_ITEM.sub("", first).strip()
    if first and len(first) <= 120 and not first.startswith("#"):
        body = remainder.strip("\n")
        return f"# {first}\n" + (f"\n{body}\n" if body else "")
    # no body line to promote (the body is a section, "Observed behaviour" say): its first statement titles it
    for line in rest.split("\n"):
        item = _LIST_ITEM.sub("", line).strip()
        if item and not item.startswith("#") and len(item) <= 160:
            return f"# {item.rstrip('.;')}\n" + (rest if rest.startswith("\n") else "\n" + rest)
    return text


def is_too_thin(instruction: str, min_chars: int = 40) -> bool:
    """True when `instruction` (str) has under `min_chars` (int) word characters.

    Only letters/digits of words count (intra-word `_`, `-`, `'` joiners too);
    whitespace and markdown punctuation (`#`, `*`, `` ` ``, `>`, `-` bullets)
    do not, so '# Fix\\n' (3 chars) is thin.
    """
    return sum(len(w) for w in _WORD.findall(instruction)) < min_chars
