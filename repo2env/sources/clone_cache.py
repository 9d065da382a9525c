"""One bare clone per remote repository, kept under the cache directory and brought up to date with fetch.

Layout: ``<cache>/clones/<host>/<owner>/<name>.git``. A first clone is made in a temporary sibling and renamed into
place, so a killed run never leaves a half clone; an ``flock`` on ``<name>.git.lock`` serialises runs on the same
clone. A token reaches git only through ``GIT_CONFIG_COUNT``/``GIT_CONFIG_KEY_n``/``GIT_CONFIG_VALUE_n``
(git >= 2.31) as an ``http.extraHeader`` for that one command: it is never written into the clone's config, never
on a command line (``ps``), and never in a message.
"""

import base64
import fcntl
import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from repo2env.core import gitrepo
from repo2env.core.errors import GitError, InputError


def default_cache_dir() -> Path:
    """``$R2E_CACHE_DIR``, else ``$XDG_CACHE_HOME/repo2rlenv``, else ``~/.cache/repo2rlenv``, made absolute.
    Raises ``InputError`` when the home directory cannot be determined."""
    try:
        if os.environ.get("R2E_CACHE_DIR"):
            return Path(os.environ["R2E_CACHE_DIR"]).expanduser().resolve()
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return (Path(base).expanduser() / "repo2rlenv").resolve()
    except RuntimeError:
        raise InputError("cannot find a home directory for the cache; pass --cache-dir or set R2E_CACHE_DIR") from None


def clone_path(cache_dir: Path, host: str, owner: str, name: str) -> Path:
    """Where the bare clone of ``host/owner/name`` lives."""
    return cache_dir / "clones" / gitrepo.docker_safe(host) / owner / f"{name}.git"


def auth_env(url: str, token: str | None) -> dict[str, str]:
    """Environment for one git call: an ``Authorization`` header for ``url`` when ``token`` is set and the URL is
    http(s). GitHub accepts ``x-access-token:<token>`` as Basic credentials for personal and app tokens."""
    env = {"GIT_TERMINAL_PROMPT": "0"}
    if token and url.startswith(("https://", "http://")):
        basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
        env.update({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "http.extraHeader",
                    "GIT_CONFIG_VALUE_0": f"Authorization: Basic {basic}"})
    return env


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / (path.name + ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _git(path: Path, url: str, token: str | None, *args: str) -> bytes:
    try:
        return gitrepo.run_git(path, *args, env_extra=auth_env(url, token))
    except GitError as exc:
        text = str(exc).replace(token, "***") if token else str(exc)
        raise GitError(text) from None


def update_clone(url: str, dest: Path, branch: str, *, token: str | None = None,
                 report: Callable[[str], None] = lambda m: None) -> Path:
    """Make ``dest`` a bare clone of ``url`` whose ``refs/heads/<branch>`` matches the remote. Clones on first use,
    fetches afterwards. Returns ``dest``. Raises ``GitError`` (token redacted) when git fails."""
    with _locked(dest):
        for attempt in (1, 2):
            if not (dest / "HEAD").is_file():
                _clone(url, dest, token, report)
            else:
                report(f"fetching {url}")
            try:
                _git(dest, url, token, "remote", "set-url", "origin", url)
                # every branch and tag: --branch may name another branch, or a range A..B between tags
                _git(dest, url, token, "fetch", "--quiet", "--prune", "origin", "+refs/heads/*:refs/heads/*",
                     "+refs/tags/*:refs/tags/*")
                break
            except GitError as exc:
                if attempt == 2 or _is_auth_error(exc):
                    raise
                report(f"the cached clone {dest} is damaged; cloning again")
                shutil.rmtree(dest)
        if not has_commit(dest, f"refs/heads/{branch}"):
            raise GitError(f"couldn't find remote ref refs/heads/{branch}")
        _git(dest, url, token, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    return dest


def _is_auth_error(exc: GitError) -> bool:
    return any(s in str(exc) for s in ("could not read Username", "Authentication failed", "403", "401"))


def _clone(url: str, dest: Path, token: str | None, report: Callable[[str], None]) -> None:
    """A fresh bare clone at ``dest``, made in a sibling and renamed into place."""
    tmp = dest.parent / (dest.name + ".partial")
    for leftover in (tmp, dest):
        if leftover.exists():
            shutil.rmtree(leftover)
    report(f"cloning {url}")
    _git(dest.parent, url, token, "clone", "--bare", "--quiet", "--no-tags", url, str(tmp))
    tmp.rename(dest)


def has_commit(path: Path, sha: str) -> bool:
    """True when ``sha`` is a commit present in the repository at ``path``."""
    try:
        gitrepo.run_git(path, "cat-file", "-e", f"{sha}^{{commit}}")
        return True
    except GitError:
        return False


def fetch_pull_heads(url: str, dest: Path, numbers: Iterable[int], *, token: str | None = None) -> None:
    """Fetch ``refs/pull/N/head`` of each PR into the clone (GitHub keeps them for every PR, merged or not).
    One fetch for all; when that fails (a ref the server lacks), one per PR, ignoring the ones that are missing."""
    refspecs = [f"+refs/pull/{n}/head:refs/pull/{n}/head" for n in numbers]
    if not refspecs:
        return
    with _locked(dest):
        try:
            _git(dest, url, token, "fetch", "--quiet", "--no-tags", "origin", *refspecs)
        except GitError:
            for spec in refspecs:
                try:
                    _git(dest, url, token, "fetch", "--quiet", "--no-tags", "origin", spec)
                except GitError:
                    continue
