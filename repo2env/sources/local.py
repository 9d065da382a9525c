"""Merged pull requests from a local clone's first-parent history of its default branch.

Three shapes are pull requests (field notes, "History shapes"): a two-parent merge titled
``Merge pull request #N from owner/branch`` (PR title in the message body), a two-parent merge whose subject
ends in ``(#N)``, and a single-parent squash/rebase commit whose subject ends in ``(#N)``. Other merges
(``Merge branch 'stable'``) are not. Base = first parent; the PR diff = first parent..commit.

A merge message often carries the title alone (GitHub's merge button writes the PR's title, not its
description): when its body is under ``THIN_BODY_WORDS`` words, the messages of the PR's own commits (what
GitHub lists under the PR's Commits tab: reachable from the second parent, not from the first) are added to it,
oldest first (``pr_commit_messages``).
"""

import re
from collections.abc import Iterator
from datetime import UTC, datetime

import git

from repo2env.core.errors import InputError
from repo2env.core.records import PullRequest, RepoRef

_MERGE_PR = re.compile(r"^Merge pull request #(\d+) from \S+")
_SUFFIX_PR = re.compile(r"^(?P<title>.*\S)\s*\(#(?P<num>\d+)\)\s*$")
THIN_BODY_WORDS = 20  # a merge body shorter than this gets the PR's own commit messages
MAX_PR_COMMITS = 12  # of which the newest this many, at most MAX_PR_COMMIT_CHARS characters in all
MAX_PR_COMMIT_CHARS = 4000
# lines of a commit message that are git trailers, not prose (git-interpret-trailers(1))
_TRAILER = re.compile(r"^(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Change-Id|"
                      r"Cc):", re.I)
# commits that say nothing of the change: fix-ups, merges of the base branch into the PR, work in progress
_NOISE = re.compile(r"^(fixup!|squash!|amend!|Merge (branch|remote-tracking branch|pull request)|wip\b)", re.I)


def parse_pr_commit(commit: git.Commit) -> tuple[int, str, str] | None:
    """``(number, title, body)`` when ``commit`` is a merged PR in one of the three shapes, else None."""
    message = commit.message.replace("\r\n", "\n")
    subject, _, rest = message.partition("\n")
    rest = rest.strip("\n")
    m = _MERGE_PR.match(subject)
    if m and len(commit.parents) == 2:
        title, _, body = rest.partition("\n")
        return int(m.group(1)), title.strip() or subject, body.strip("\n")
    m = _SUFFIX_PR.match(subject)
    if m and len(commit.parents) in (1, 2):
        return int(m["num"]), m["title"], rest
    return None


def pr_commit_messages(repo: git.Repo, commit: git.Commit, title: str) -> str:
    """The messages of a two-parent merge's own commits (``parents[0]..parents[1]``, merges left out), oldest
    first, as paragraphs: trailers, fix-ups, work-in-progress commits and a subject equal to ``title`` or to an
    earlier one dropped; at most ``MAX_PR_COMMITS`` commits (the newest) and ``MAX_PR_COMMIT_CHARS``
    characters. ``""`` for any other commit."""
    if len(commit.parents) != 2:
        return ""
    seen, parts, size = {title.strip().lower()}, [], 0
    own = list(repo.iter_commits(f"{commit.parents[0].hexsha}..{commit.parents[1].hexsha}", no_merges=True,
                                 max_count=MAX_PR_COMMITS))
    for each in reversed(own):
        lines = [line for line in each.message.replace("\r\n", "\n").strip().splitlines()
                 if not _TRAILER.match(line)]
        subject = lines[0].strip() if lines else ""
        if not subject or _NOISE.match(subject) or subject.lower() in seen:
            continue
        seen.add(subject.lower())
        text = "\n".join(lines).strip()
        if size + len(text) > MAX_PR_COMMIT_CHARS:
            break
        parts.append(text)
        size += len(text)
    return "\n\n".join(parts)


def _pr_author(commit: git.Commit) -> str:
    # A merge commit's author is whoever pressed the button; the PR's author wrote its second parent.
    who = commit.parents[1].author if len(commit.parents) == 2 else commit.author
    return f"{who.name} <{who.email}>"


def list_pull_requests(repo: git.Repo, ref: RepoRef, *, branch: str | None = None,
                       since: datetime | None = None, until: datetime | None = None,
                       numbers: tuple[int, ...] = ()) -> Iterator[PullRequest]:
    """Yield merged PRs newest first from ``branch`` (default: HEAD) within [since, until] on merge date.

    ``numbers`` restricts to those PR numbers; one that is not found raises ``InputError`` after the walk.
    """
    rev = branch or "HEAD"
    try:
        repo.rev_parse(rev)
    except (git.BadName, ValueError):
        raise InputError(f"{ref.path}: no branch or revision {rev!r}; pass --branch with an existing branch") from None
    wanted = set(numbers)
    found: set[int] = set()
    for commit in repo.iter_commits(rev, first_parent=True):
        merged_at = commit.committed_datetime.astimezone(UTC)
        if until and merged_at > until:
            continue
        if since and merged_at < since:
            break
        parsed = parse_pr_commit(commit)
        if parsed is None:
            continue
        number, title, body = parsed
        if wanted and number not in wanted:
            continue
        if len(body.split()) < THIN_BODY_WORDS:
            body = "\n\n".join(part for part in (body.strip(), pr_commit_messages(repo, commit, title)) if part)
        found.add(number)
        yield PullRequest(
            number=number, title=title, body=body, author=_pr_author(commit), merged_at=merged_at,
            base_commit=commit.parents[0].hexsha, head_commit=commit.hexsha,
            shape="merge" if len(commit.parents) == 2 else "squash",
            reference=f"{ref.web_url}/pull/{number}" if ref.web_url else None,
        )
    missing = sorted(wanted - found)
    if missing:
        listed = ", ".join(f"#{n}" for n in missing)
        raise InputError(f"{ref.path}: no merged pull request {listed} on the first-parent history of {rev}"
                         " (within --since/--until); check the number with `git log --first-parent`")
