"""Static filters on a plain commit (commit_runtime), before any Docker work. Each returns a ``SkipReason`` or None.

Message rules: a conventional-commit type (``type(scope)!: subject``, conventionalcommits.org 1.0) other than
``fix`` that names docs, chore, ci, style, test, build or refactor work is not a bug fix; otherwise a fix needs a
signal: the ``fix`` type, a closing reference ("Fixes #12", GitHub's keywords) or a fix word in the subject.
Change rules come from ``filters.static_skip_reason`` plus ``no_new_test_functions``.
"""

import re
from dataclasses import dataclass

from unidiff import PatchSet

from repo2env.changes.filters import static_skip_reason
from repo2env.core.outcomes import SkipReason
from repo2env.core.records import ChangeSplit, CommitCandidate
from repo2env.sources.closing_refs import closing_refs

NON_FIX_TYPES = frozenset({"docs", "chore", "ci", "style", "test", "tests", "build", "refactor"})
DEFAULT_BOTS = ("[bot]", "dependabot", "renovate", "pre-commit-ci", "github-actions", "greenkeeper",
                "snyk-bot", "allcontributors", "weblate")

_CONVENTIONAL = re.compile(r"^(?P<type>[a-z]+)(\([^)]*\))?!?:\s")
_FIX_WORDS = re.compile(
    r"\b(fix(es|ed|ing)?|bug(s|fix)?|hotfix|correct(s|ed|ly)?|crash(es|ed)?|regression|broken|wrong|incorrect(ly)?"
    r"|repair(s|ed)?|resolve[sd]?|prevent(s|ed)?|avoid(s|ed)?|handle[sd]?|error|exception|fail(s|ed|ure)?"
    r"|issue|typo|off-by-one|leak(s|ed)?|race)\b",
    re.IGNORECASE)
_TEST_DEF = re.compile(r"^\s*(async\s+)?def\s+test\w*\s*\(|^\s*class\s+Test\w*")


@dataclass(frozen=True)
class CommitFilterConfig:
    """``exclude_authors``: substrings of ``Name <email>`` that mark a bot (case-insensitive); ``include_types``:
    conventional types to keep although they are not fixes; ``min_subject_chars``: word characters a subject needs."""

    exclude_authors: tuple[str, ...] = DEFAULT_BOTS
    include_types: tuple[str, ...] = ()
    min_subject_chars: int = 12


def conventional_type(subject: str) -> str | None:
    """The conventional-commit type of ``subject`` (lower-case), or None."""
    m = _CONVENTIONAL.match(subject.strip().lower())
    return m["type"] if m else None


def category_of(title: str, body: str = "") -> str:
    """``bugfix`` when the change carries a fix signal (the ``fix`` type or a fix word in ``title``, a closing
    reference in ``body``), else ``feature``: the ``[metadata].category`` of a task made from a change."""
    fix = conventional_type(title) == "fix" or _FIX_WORDS.search(title) or closing_refs(body, "o", "r")
    return "bugfix" if fix else "feature"


def strip_type(subject: str) -> str:
    """``subject`` without its conventional-commit prefix (``fix(parser): x`` -> ``x``), for the instruction."""
    m = _CONVENTIONAL.match(subject.strip().lower())
    return subject.strip()[m.end():] if m else subject


def is_bot_author(author: str, patterns: tuple[str, ...] = DEFAULT_BOTS) -> bool:
    """Whether ``author`` (a git ``Name <email>`` or a GitHub login) is a bot's: it holds one of ``patterns``
    (substrings, case-insensitive; ``DEFAULT_BOTS``: GitHub's ``[bot]`` suffix and the usual update services)."""
    author = author.lower()
    return any(pattern.lower() in author for pattern in patterns)


def message_skip_reason(commit: CommitCandidate, config: CommitFilterConfig) -> SkipReason | None:
    """Reasons that need only the commit's metadata, in order: merge, bot, too short, not a fix type, no signal."""
    if commit.merge:
        return SkipReason.MERGE_COMMIT
    if is_bot_author(commit.author, config.exclude_authors):
        return SkipReason.BOT_AUTHOR
    if sum(ch.isalnum() for ch in commit.subject) < config.min_subject_chars:
        return SkipReason.MESSAGE_TOO_SHORT
    kind = conventional_type(commit.subject)
    if kind in NON_FIX_TYPES and kind not in config.include_types:
        return SkipReason.NOT_A_FIX_TYPE
    has_signal = (kind == "fix" or bool(closing_refs(f"{commit.subject}\n{commit.body}", "o", "r"))
                  or bool(_FIX_WORDS.search(commit.subject)))
    if not has_signal and kind not in config.include_types:
        return SkipReason.NO_FIX_SIGNAL
    return None


def touches_test_functions(test_patch: str) -> bool:
    """True when the test patch adds a test function or class (``def test*``, ``class Test*``), or changes lines
    in a hunk that shows one: as an added or context line, or as the hunk's section header, which git fills with
    the nearest preceding unindented line (its default funcname rule), e.g. ``def test_parse():``."""
    for patched in PatchSet(test_patch):
        for hunk in patched:
            changed = [line for line in hunk if line.is_added or line.is_removed]
            if not changed:
                continue
            if any(line.is_added and _TEST_DEF.match(line.value) for line in hunk):
                return True
            if _TEST_DEF.match(hunk.section_header or ""):
                return True
            context_defs = [line.value for line in hunk if line.is_context and _TEST_DEF.match(line.value)]
            if context_defs:
                return True
    return False


def change_skip_reason(commit: CommitCandidate, split: ChangeSplit, *, max_source_files: int) -> SkipReason | None:
    """Reasons that need the commit's diff: those of pr_runtime, then ``no_new_test_functions``."""
    reason = static_skip_reason(commit.subject, split, max_source_files=max_source_files)
    if reason is not None:
        return reason
    if not touches_test_functions(split.test_patch):
        return SkipReason.NO_NEW_TEST_FUNCTIONS
    return None
