"""Plain commits of a branch, newest first: the candidates of commit_runtime.

The walk follows first parents by default (the branch's own history), or all commits with ``first_parent=False``;
``rev`` is a branch, a revision, or a range ``A..B`` (git's "reachable from B, not from A"). Merge commits are
listed (and skipped later with a reason code); root commits have no parent to be a base and are not listed.
"""

from collections.abc import Iterator
from datetime import UTC, datetime

import git

from repo2env.core.errors import InputError
from repo2env.core.records import CommitCandidate, RepoRef


def list_commits(repo: git.Repo, ref: RepoRef, *, rev: str | None = None, since: datetime | None = None,
                 until: datetime | None = None, first_parent: bool = True) -> Iterator[CommitCandidate]:
    """Yield commits of ``rev`` (default HEAD) committed within [since, until], newest first.

    Raises ``InputError`` for an unknown branch or range, or a range with no commits (after the walk)."""
    rev = rev or "HEAD"
    ends = rev.split("..", 1) if ".." in rev else [rev]
    for end in ends:
        try:
            repo.rev_parse(end or "HEAD")
        except (git.BadName, ValueError):
            what = "range" if ".." in rev else "branch or revision"
            name = ref.slug if ref.web_url else ref.path
            raise InputError(f"{name}: no {what} {rev!r} ({end!r} is unknown); pass an existing branch or "
                             "A..B range with --branch") from None
    count = 0
    for commit in repo.iter_commits(rev, first_parent=first_parent):
        count += 1
        committed = commit.committed_datetime.astimezone(UTC)
        if until and committed > until:
            continue
        if since and committed < since:
            if first_parent:
                break
            continue
        if not commit.parents:
            continue  # a root commit (shallow clones are refused earlier, by gitrepo.open_repo)
        parent = commit.parents[0].hexsha
        subject, _, body = commit.message.replace("\r\n", "\n").partition("\n")
        yield CommitCandidate(
            sha=commit.hexsha, parent_sha=parent, subject=subject.strip(), body=body.strip("\n"),
            author=f"{commit.author.name} <{commit.author.email}>", authored_at=commit.authored_datetime.astimezone(UTC),
            committed_at=committed, merge=len(commit.parents) > 1,
            reference=f"{ref.web_url}/commit/{commit.hexsha}" if ref.web_url else None)
    if count == 0:
        name = ref.slug if ref.web_url else ref.path
        raise InputError(f"{name}: {rev} has no commits; check the range (A..B lists commits reachable from B "
                         "but not from A)")
