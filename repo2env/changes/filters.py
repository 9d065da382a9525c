"""Static filters on a candidate PR: each returns the first ``SkipReason`` that applies, or None.

Order matters: a docs-only PR has no test patch either, and is reported as ``docs_ci_only``.
"""

import re

from repo2env.core.outcomes import SkipReason
from repo2env.core.records import ChangeSplit

_VERSION = r"v?\d+\.\d+(\.\d+)?([.-]?(rc|a|b|dev|post)\d*)?"
_REVERT_RELEASE = re.compile(
    r"^\s*(revert\b|reapply\b|bump\b|release\b|prepare\s+(for\s+)?release|\[release\]|version\s+bump"
    r"|(version\s+)?" + _VERSION + r"(\s+release)?\s*$"  # "v2.0.1", "Version 11.0.1", "1.2.0 release"
    r"|(changes|changelog|release\s+notes|notes|news)\s+(for\s+)?(version\s+)?" + _VERSION + r"\b)"
    r"|\bbump (the )?version\b|\brelease v?\d",
    re.IGNORECASE)


def is_revert_or_release(title: str) -> bool:
    """Revert, version-bump and release PR titles (``Revert "..."``, ``Bump foo from 1 to 2``, ``v1.2.3``)."""
    return bool(_REVERT_RELEASE.search(title))


def static_skip_reason(title: str, split: ChangeSplit, *, max_source_files: int) -> SkipReason | None:
    """The first static reason to skip this PR, or None when it may become a task."""
    if is_revert_or_release(title):
        return SkipReason.REVERT_OR_RELEASE
    if not split.source_files and split.docs_ci_files:
        return SkipReason.DOCS_CI_ONLY
    if not split.test_files and not split.mixed_files:
        return SkipReason.NO_TEST_PATCH
    if not split.source_files:
        return SkipReason.NO_SOURCE_CHANGE
    if len(split.source_files) > max_source_files:
        return SkipReason.TOO_MANY_SOURCE_FILES
    if split.binary_test_files:
        return SkipReason.BINARY_TEST_FILES
    return None


def diff_skip_reason(title: str, split: ChangeSplit, *, max_files: int, min_changed_lines: int) -> SkipReason | None:
    """pr_diff's static reasons, in order: revert/release, docs/CI only, tests only (``no_source_change``), more
    files than ``max_files`` (tests included), fewer changed non-test lines than ``min_changed_lines``."""
    if is_revert_or_release(title):
        return SkipReason.REVERT_OR_RELEASE
    if not split.source_files and not split.test_files:
        return SkipReason.DOCS_CI_ONLY
    if not split.source_files:
        return SkipReason.NO_SOURCE_CHANGE
    if len(split.source_files) + len(split.test_files) > max_files:
        return SkipReason.TOO_MANY_FILES
    if split.gold_lines_added + split.gold_lines_removed < min_changed_lines:
        return SkipReason.DIFF_TOO_SMALL
    return None
