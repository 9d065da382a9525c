"""Mutants as git commits, so that a synthetic bug is a runtime task like a merged fix: in a scratch bare
repository that borrows the source clone's objects (``git clone --bare --shared``, never writing into the
user's clone), the mutant commit ``M`` (the revision's tree with the bug, parent: the revision) and the fix
commit ``H`` (the revision's tree again, parent: ``M``). ``M..H`` is then the gold patch, with no test patch.

Both commits are written with fixed names and the revision's own dates, so the same mutation at the same revision
is the same pair of commits on every run (a resumed or nightly build writes the same bundles).
"""

import shutil
from pathlib import Path

from repo2env.core import gitrepo
from repo2env.core.errors import GitError
from repo2env.tasks.mutate.strategies import Mutation

IDENTITY = {"GIT_AUTHOR_NAME": "repo2rlenv", "GIT_AUTHOR_EMAIL": "repo2rlenv@localhost",
            "GIT_COMMITTER_NAME": "repo2rlenv", "GIT_COMMITTER_EMAIL": "repo2rlenv@localhost"}


def scratch_repo(source: str, dest: Path) -> str:
    """The scratch bare repository at ``dest`` for the clone ``source`` (made on first use: ``git clone --bare
    --shared``, objects borrowed through ``objects/info/alternates``). Returns its path. Raises ``GitError``."""
    if not (dest / "HEAD").is_file():
        dest.parent.mkdir(parents=True, exist_ok=True)
        tmp = dest.with_name(dest.name + ".tmp")
        if tmp.exists():
            shutil.rmtree(tmp)
        gitrepo.run_git(dest.parent, "clone", "-q", "--bare", "--shared", "--no-tags", str(Path(source).resolve()),
                        str(tmp))
        tmp.rename(dest)
    return str(dest)


def _git(repo: str, *args: str, env: dict | None = None, data: bytes | None = None) -> str:
    return gitrepo.run_git(repo, *args, env_extra=env, input_bytes=data).decode().strip()


def mutant_commits(repo: str, revision: str, mutation: Mutation) -> tuple[str, str]:
    """``(M, H)`` for ``mutation`` at ``revision`` in the scratch ``repo``; kept reachable as
    ``bug_ref(mutation)`` and ``refs/r2e-mutants/fix/<key>``. Raises ``GitError`` (e.g. the file is not in the
    revision's tree)."""
    entry = _git(repo, "ls-tree", revision, "--", mutation.path)
    if not entry:
        raise GitError(f"{mutation.path} is not in {revision[:12]}")
    mode = entry.split()[0]
    original = gitrepo.file_bytes(repo, revision, mutation.path)
    blob = _git(repo, "hash-object", "-w", "--stdin", data=mutation.apply(original))
    date = _git(repo, "show", "-s", "--format=%cI", revision)
    env = dict(IDENTITY, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date,
               GIT_INDEX_FILE=str(Path(repo).resolve() / f"index-{mutation.key}"))
    try:
        _git(repo, "read-tree", revision, env=env)
        _git(repo, "update-index", "--cacheinfo", f"{mode},{blob},{mutation.path}", env=env)
        tree = _git(repo, "write-tree", env=env)
    finally:
        Path(env["GIT_INDEX_FILE"]).unlink(missing_ok=True)
    mutant = _git(repo, "commit-tree", tree, "-p", revision, "-m", f"mutant {mutation.key}", env=env)
    fixed = _git(repo, "commit-tree", f"{revision}^{{tree}}", "-p", mutant, "-m", f"fix {mutation.key}", env=env)
    _git(repo, "update-ref", bug_ref(mutation), mutant)
    _git(repo, "update-ref", f"refs/r2e-mutants/fix/{mutation.key}", fixed)
    return mutant, fixed


def bug_ref(mutation: Mutation) -> str:
    """The ref that names ``mutation``'s mutant commit in the scratch repository."""
    return f"refs/r2e-mutants/bug/{mutation.key}"
