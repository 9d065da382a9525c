"""The leak audit: one check every instruction passes before a bundle is kept, whatever wrote it.

Rules (each finding names its rule and the character span it covers):

- ``test_name``: a FAIL_TO_PASS/PASS_TO_PASS test function or class name, or a helper the test patch defines
  (``leak_strip.test_helpers``), as a whole word.
- ``test_path``: a hidden test file path, or its file name (``conftest.py``/``__init__.py`` excepted).
- ``repo_url``: a URL to an issue, pull request or commit of a GitHub/GitLab repository, or any URL under the
  repository's own web address.
- ``sha``: a hexadecimal word of 7-40 characters with a digit and a letter (a commit id).
- ``issue_ref``: ``#N``, ``owner/repo#N`` or ``GH-N``.
- ``gold_overlap``: a run of ``ngram`` or more consecutive tokens (words and punctuation, Markdown's code quotes
  and ``*`` emphasis aside) that also stands in the added lines of the gold patch's source files (the fix
  itself, copied; its changelog and documentation lines say what the title says and are not the fix) or of the
  test patch (the grading tests, copied), read line after line (``copy_grams``: a comment wrapped over two
  lines is one run).

``audit`` lists findings; ``remove_findings`` cuts them out (the deterministic path's remedy).
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from repo2env.instructions.leak_strip import FILLER, REFERENCES, SHA, grading_test_needles, name_pattern

RULES = ("test_name", "test_path", "repo_url", "sha", "issue_ref", "gold_overlap")
DEFAULT_NGRAM = 8
# a word, a punctuation mark, or an escaped line break or tab (``\n`` in a string's repr), which separates like
# the line break it stands for: a data file quoted as a repr is still a copy of its lines
_TOKEN = re.compile(r"\\[nrt](?![0-9a-fA-F]{2})|\w+|[^\w\s]")
_SEPARATORS = ("`", "\\n", "\\r", "\\t")  # Markdown's code quotes, escaped breaks


def _emphasis(text: str, at: int) -> bool:
    """The ``*`` at ``at`` marks Markdown emphasis (``*last*``: a space or the start before it and a word after
    it, or a word before it and a space, a stop or the end after it), not code's ``a * b`` or ``a*b``."""
    before, after = text[at - 1:at] if at else "", text[at + 1:at + 2]
    return (not before or before.isspace()) and after.isalnum() or \
        before.isalnum() and (not after or after.isspace() or after in ".,;:!?)")


def token_marks(text: str) -> list:
    """The audit's tokens of ``text`` as regex matches (their positions), separators and emphasis marks left
    out."""
    return [m for m in _TOKEN.finditer(text) if m.group() not in _SEPARATORS
            and not (m.group() == "*" and _emphasis(text, m.start()))]


def tokens(text: str) -> list[str]:
    """The audit's tokens of ``text``: words and single punctuation marks, with ``"`` read as ``'`` (so a copy
    that only changed the quote style, as ``ast.unparse`` does, is still a copy), Markdown's code quotes
    (`` ` ``), ``*`` (emphasis: sqlparse-332's "after the *last* dot" copied a comment of the fix) and escaped
    line breaks (``\\n``) left out: a copy cut into code spans, or a data file quoted as a string's repr, is
    still a copy."""
    return [m.group() if m.group() != '"' else "'" for m in token_marks(text)]


_COMMENT_LEAD = re.compile(r"^\s*(?:#+|//+|/?\*+/?|--|;+|\"\"\"|\'\'\'|>+)?\s*")


def copy_grams(lines: Sequence[str], n: int = DEFAULT_NGRAM) -> set[tuple[str, ...]]:
    """Every run of ``n`` tokens (``tokens``) of ``lines`` read as one text, line after line, with each line's
    comment or quote marks at its start left out (``#``, ``//``, ``*``, ``--``, ``>``, a docstring's quotes):
    a sentence of a comment or docstring wrapped over two lines is copied as one run (the ``gold_overlap``
    rule's runs)."""
    stream = [t for line in lines for t in tokens(_COMMENT_LEAD.sub("", line, count=1))]
    return _ngrams(stream, n)
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+")


@dataclass(frozen=True)
class Finding:
    """One leak: its ``rule`` (one of ``RULES``) and the span ``text[start:end]``."""

    rule: str
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class AuditContext:
    """What must not leak: grading test ids (``path::name``), hidden test paths, the added lines of the gold
    patch and of the test patch, the repository's web address (``https://github.com/owner/name``, or None),
    the n-gram length, and the names that may be said although a test shares them (the fix defines them)."""

    test_ids: Sequence[str] = ()
    hidden_paths: Sequence[str] = ()
    gold_added_lines: Sequence[str] = ()
    web_url: str | None = None
    ngram: int = DEFAULT_NGRAM
    test_added_lines: Sequence[str] = ()
    allowed_names: Sequence[str] = ()  # names the fix defines: the task's interface (leak_strip.grading_test_needles)


def added_lines(patch: str, paths=None) -> list[str]:
    """The added lines of a unified diff (text, without the ``+``), of the files in ``paths`` only when given;
    binary and unparsable patches give none."""
    keep = None if paths is None else set(paths)
    try:
        return [line.value.rstrip("\n") for f in PatchSet(patch) if keep is None or f.path in keep
                for h in f for line in h if line.is_added]
    except UnidiffParseError:
        return []


def _ngrams(tokens: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)}


def _word_spans(text: str, word: str, rule: str) -> list[Finding]:
    return [Finding(rule, m.start(), m.end(), m.group()) for m in name_pattern(word).finditer(text)]


def _gold_overlap(text: str, ctx: AuditContext) -> list[Finding]:
    grams = copy_grams(ctx.gold_added_lines, ctx.ngram) | copy_grams(ctx.test_added_lines, ctx.ngram)
    if not grams:
        return []
    marks = token_marks(text)
    words = [m.group() if m.group() != '"' else "'" for m in marks]
    hit = [False] * len(marks)
    for i in range(len(marks) - ctx.ngram + 1):
        if tuple(words[i:i + ctx.ngram]) in grams:
            hit[i:i + ctx.ngram] = [True] * ctx.ngram
    found, i = [], 0
    while i < len(marks):
        if hit[i]:
            j = i
            while j + 1 < len(marks) and hit[j + 1]:
                j += 1
            start, end = marks[i].start(), marks[j].end()
            found.append(Finding("gold_overlap", start, end, text[start:end]))
            i = j + 1
        else:
            i += 1
    return found


def audit(text: str, ctx: AuditContext) -> list[Finding]:
    """Every leak in ``text``, ordered by position."""
    paths, names = grading_test_needles(ctx.test_ids, ctx.hidden_paths, ctx.allowed_names, ctx.test_added_lines)
    found: list[Finding] = []
    for name in sorted(names):
        found += _word_spans(text, name, "test_name")
    for path in sorted(paths):
        found += [Finding("test_path", m.start(), m.end(), m.group())
                  for m in re.finditer(re.escape(path), text, re.I)]
    for m in _URL.finditer(text):
        url = m.group().rstrip(".,;:!?")
        if REFERENCES.fullmatch(url) or (ctx.web_url and url.lower().startswith(ctx.web_url.lower())):
            found.append(Finding("repo_url", m.start(), m.start() + len(url), url))
    url_spans = [(f.start, f.end) for f in found if f.rule == "repo_url"]
    for m in REFERENCES.finditer(text):
        if not m.group().lower().startswith("http") and not any(a <= m.start() < b for a, b in url_spans):
            found.append(Finding("issue_ref", m.start(), m.end(), m.group()))
    for m in SHA.finditer(text):
        if not any(a <= m.start() < b for a, b in url_spans):
            found.append(Finding("sha", m.start(), m.end(), m.group()))
    found += _gold_overlap(text, ctx)
    return sorted(found, key=lambda f: (f.start, f.end))


_DANGLING = re.compile(r"(?:\b(?:as in|in|see|from|by|at|of|via|per)\s*)$", re.I)
_SENTENCE_END = re.compile(r"(?<![Ee]\.g\.)(?<![Ii]\.e\.)(?<!etc\.)(?<!vs\.)(?<=[.!?])\s+")  # not after "e.g."


_BLOCK_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#|>|```|\||$)")


def _line_from(text: str, start: int) -> str:
    """The line of ``text`` that begins at offset ``start``, without its line break."""
    end = text.find("\n", start)
    return text[start:] if end < 0 else text[start:end]


def _sentence_of(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the sentence of ``text`` around ``start``..``end``, within its paragraph's lines (a
    paragraph hard-wrapped over several lines is one text: a sentence's head on the line before is its own; a
    list item, a heading, a quote, a table row or a fence starts a paragraph of its own)."""
    line_start = text.rfind("\n", 0, start) + 1
    while line_start > 0 and not _BLOCK_START.match(_line_from(text, line_start)):
        before = text.rfind("\n", 0, line_start - 1) + 1  # the line above joins unless it is blank or a heading
        above = text[before:line_start - 1]
        if not above.strip() or above.lstrip().startswith(("#", "```", "|")):
            break
        line_start = before
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    while line_end < len(text) and not _BLOCK_START.match(_line_from(text, line_end + 1)):
        line_end += 1 + len(_line_from(text, line_end + 1))
    line = text[line_start:line_end]
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(line)] + [len(line)]
    left = max(b for b in bounds if b <= start - line_start)
    right = min((b for b in bounds if b >= end - line_start), default=len(line))
    return line_start + left, line_start + right


def _without_filler(line: str) -> str:
    """``line`` without the sentences that removals left with filler words only ("See and.")."""
    parts = _SENTENCE_END.split(line)
    kept = [p for p in parts if any(w.lower() not in FILLER for w in re.findall(r"[^\W_]+", p))
            or not re.search(r"\w", p)]
    return " ".join(k for k in kept if k.strip()) if len(kept) != len(parts) else line


def remove_findings(text: str, findings: Sequence[Finding]) -> str:
    """``text`` without the spans of ``findings`` (overlaps merged), with doubled spaces and blank lines tidied.
    A ``gold_overlap`` finding (copied code) takes its whole sentence: what is left of a sentence whose code was
    cut out says nothing right. A preposition left dangling by a removed reference ("as in #12,") goes too."""
    spans = sorted(_sentence_of(text, f.start, f.end) if f.rule == "gold_overlap" else (f.start, f.end)
                   for f in findings)
    out, pos = [], 0
    for start, end in spans:
        if end <= pos:
            continue
        kept = text[pos:max(start, pos)]
        after = text[end:end + 1]
        if not after or after in ",.;:)\n":
            kept = _DANGLING.sub("", kept)
        out.append(kept)
        pos = end
    out.append(text[pos:])
    joined = "".join(out)
    touched = {text.count("\n", 0, start) for start, _ in spans}  # no span crosses a line
    lines = [re.sub(r"[ \t]{2,}", " ", line).rstrip() for line in joined.split("\n")]
    lines = [_without_filler(re.sub(r"\s+([,.;:])", r"\1", line)) if i in touched else line
             for i, line in enumerate(lines)]
    lines = [line for line in lines if line.strip() not in ("-", "*", ",", ".")]
    tidy = re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip("\n")
    return tidy + "\n"


def rules_fired(findings: Sequence[Finding]) -> list[str]:
    """The distinct rules of ``findings``, in ``RULES`` order."""
    fired = {f.rule for f in findings}
    return [r for r in RULES if r in fired]
