"""Read-only access to a user's git repository (GitPython), and the scrubbed copy that goes into an image.

Nothing here writes into the user's repository: the scrubbed copy is a new repository that fetches the base
commit from it (``git worktree add`` would write into the source, see the field notes).
"""

import io
import re
import subprocess
import tarfile
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlparse

import git

from repo2env.core.errors import GitError, InputError
from repo2env.core.records import RepoRef

# An origin on any forge: git@host:owner/name(.git), https://host/group/owner/name(.git), ssh://git@host:22/...
_HOST_URL = re.compile(r"^(?:git@|https?://(?:[^@/\s]+@)?|ssh://(?:[^@/\s]+@)?)(?P<host>[A-Za-z0-9.-]+\.[A-Za-z]{2,})"
                       r"(?::\d+)?[:/](?:[\w.-]+/)*(?P<owner>[\w.-]+)/(?P<name>[\w.-]+?)(?:\.git)?/?$")
# Local environment that must not leak into git calls (a user's GIT_DIR would redirect them).
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_NO_REPLACE_OBJECTS": "1", "GIT_DIR": None, "GIT_WORK_TREE": None}


def source_path(spec: str) -> Path:
    """Turn a CLI source (``/path``, ``./clone``, ``file:///path``) into an absolute path.

    Raises ``InputError`` when the path does not exist.
    """
    if spec.startswith("file://"):
        spec = unquote(urlparse(spec).path)
    path = Path(spec).expanduser().resolve()
    if not path.exists():
        raise InputError(f"{spec}: no such directory; pass the path of a git clone (or org/repo for GitHub)")
    return path


def open_repo(path: Path) -> git.Repo:
    """Open ``path`` as a git repository (work tree or bare). Raises ``InputError`` if it is not one or has no commit."""
    try:
        repo = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise InputError(f"{path}: not a git repository; pass the path of a git clone") from None
    try:
        repo.head.commit
    except ValueError:
        raise InputError(f"{path}: the repository has no commits on HEAD; nothing to mine") from None
    if (Path(repo.git_dir) / "shallow").exists():
        raise InputError(f"{path}: shallow clone (parents are missing); run `git -C {path} fetch --unshallow` first")
    return repo


def repo_ref(repo: git.Repo, path: Path) -> RepoRef:
    """Identify the repository: ``owner/name`` from an ``origin`` on a forge (GitHub, GitLab, Codeberg, a
    self-hosted one: any ``host/.../owner/name`` URL), its web page ``https://host/owner/name``; else
    ``local/<dirname>`` (``--repo-name`` names it then)."""
    for remote in repo.remotes:
        if remote.name != "origin":
            continue
        for url in remote.urls:
            m = _HOST_URL.search(url)
            if m:
                slug = f"{m['owner']}/{m['name']}"
                return RepoRef(slug=slug, path=str(path), web_url=f"https://{m['host']}/{slug}")
    name = path.name[:-4] if path.name.endswith(".git") else path.name
    return RepoRef(slug=f"local/{docker_safe(name)}", path=str(path))


def docker_safe(name: str) -> str:
    """``name`` as a Docker repository path component: lower-case ASCII letters and digits, single separators
    (``[a-z0-9]+([._-][a-z0-9]+)*``); ``repo`` when nothing is left."""
    ascii_only = re.sub(r"[^a-z0-9._-]+", "-", name.lower())
    collapsed = re.sub(r"[._-]*([._-])[._-]*", r"\1", ascii_only).strip("._-")
    return collapsed or "repo"


def run_git(repo_path: Path | str, *args: str, input_bytes: bytes | None = None,
            env_extra: dict[str, str] | None = None) -> bytes:
    """Run ``git -C repo_path ARGS`` and return stdout bytes. ``env_extra`` adds environment variables for this
    call only (e.g. ``GIT_CONFIG_*`` carrying an auth header). Raises ``GitError`` naming the command."""
    env = {k: v for k, v in _env_items() if v is not None}
    env.update(env_extra or {})
    proc = subprocess.run(["git", "-C", str(repo_path), *args], input=input_bytes, capture_output=True, env=env)
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        raise GitError(f"git {' '.join(args[:3])} failed in {repo_path}: {err[-1] if err else proc.returncode}")
    return proc.stdout


def _env_items():
    import os

    merged = dict(os.environ)
    merged.update(_GIT_ENV)
    return merged.items()


def diff(repo_path: Path | str, base: str, head: str, paths: list[str] | None = None) -> str:
    """``git diff --binary --full-index --no-renames base head [-- paths]`` as text (binary hunks are base85)."""
    args = ["diff", "--binary", "--full-index", "--no-renames", "--no-color", "--no-ext-diff", base, head]
    if paths is not None:
        if not paths:
            return ""
        args += ["--", *paths]
    return run_git(repo_path, *args).decode("utf-8", errors="surrogateescape")


def diff_texts(path: str, before: str, after: str) -> str:
    """``git diff`` of one file from the text ``before`` to the text ``after``, both at ``path``, in the form
    ``diff`` gives (``a/``/``b/`` paths, ``git apply`` reads it): ``git diff --no-index`` of two scratch copies.
    "" when the texts are equal."""
    if before == after:
        return ""
    with tempfile.TemporaryDirectory(prefix="r2e-diff-") as scratch:
        for side, text in (("a", before), ("b", after)):
            target = Path(scratch, side, path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8", "surrogateescape"))
        proc = subprocess.run(["git", "-c", "core.quotepath=off", "diff", "--no-index", "--no-prefix", "--no-color",
                               "--no-ext-diff", "--full-index", f"a/{path}", f"b/{path}"], cwd=scratch,
                              capture_output=True)
    if proc.returncode not in (0, 1):
        raise GitError(f"git diff --no-index {path}: {proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout.decode("utf-8", errors="surrogateescape")


def ls_tree(repo_path: Path | str, commit: str) -> list[str]:
    """Every file path in ``commit``'s tree."""
    out = run_git(repo_path, "ls-tree", "-r", "-z", "--name-only", commit)
    return [p for p in out.decode("utf-8", errors="surrogateescape").split("\0") if p]


def show_file(repo_path: Path | str, commit: str, path: str) -> str | None:
    """Text of ``path`` at ``commit``, or None when absent."""
    try:
        return run_git(repo_path, "show", f"{commit}:{path}").decode("utf-8", errors="replace")
    except GitError:
        return None


def file_bytes(repo_path: Path | str, commit: str, path: str) -> bytes | None:
    """Bytes of ``path`` at ``commit`` (exact, binary-safe), or None when absent."""
    try:
        return run_git(repo_path, "cat-file", "blob", f"{commit}:{path}")
    except GitError:
        return None


def scrubbed_copy(source: Path | str, base_commit: str, dest: Path, branch: str = "main") -> None:
    """Create at ``dest`` a new repository whose only reachable history is ``base_commit`` and its ancestors.

    The copy has one branch (``branch``) checked out at ``base_commit``, no remote, no tags, no reflog and no
    FETCH_HEAD; objects come from ``source`` by a local fetch, so nothing newer than the base is ever present.
    Raises ``GitError`` when the base commit is not in ``source``.
    """
    dest.mkdir(parents=True, exist_ok=True)
    run_git(dest, "init", "-q", f"--initial-branch={branch}")
    run_git(dest, "fetch", "-q", "--no-tags", "--no-write-fetch-head", "--update-head-ok", str(source),
            f"+{base_commit}:refs/heads/{branch}")
    run_git(dest, "-c", "advice.detachedHead=false", "checkout", "-q", "-f", branch)
    run_git(dest, "reflog", "expire", "--expire=now", "--all")
    run_git(dest, "gc", "-q", "--prune=now")
    head = run_git(dest, "rev-parse", "HEAD").decode().strip()
    if head != base_commit:
        raise GitError(f"scrubbed copy of {source} is at {head}, expected {base_commit}")


def apply_check(repo_path: Path | str, patch: str) -> str | None:
    """``git apply --check`` of ``patch`` in a work tree; returns None when it applies, else git's last line."""
    if not patch:
        return None
    try:
        run_git(repo_path, "apply", "--check", "--binary", "-", input_bytes=patch.encode("utf-8", "surrogateescape"))
    except GitError as exc:
        return str(exc)
    return None


def commit_date_iso(repo_path: Path | str, commit: str) -> str:
    """The committer date of ``commit`` as RFC 3339 UTC (``2025-06-01T12:00:00Z``), for ``uv --exclude-newer``."""
    out = run_git(repo_path, "show", "-s", "--format=%ct", commit).decode().strip()
    from datetime import UTC, datetime

    return datetime.fromtimestamp(int(out), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def gitlinks(repo_path: Path | str, commit: str) -> list[tuple[str, str]]:
    """The submodules of ``commit``'s tree: ``(path, pinned commit sha)`` of every gitlink (mode 160000), sorted
    by path. Raises ``GitError`` for a missing commit."""
    return sorted((path, entry.split()[1]) for path, entry in ls_tree_entries(repo_path, commit).items()
                  if entry.startswith("160000 "))


def _submodule_names(repo_path: Path | str, commit: str) -> dict[str, str]:
    """``.gitmodules`` at ``commit``: path -> submodule name (the name keys ``.git/modules/<name>``)."""
    text = show_file(repo_path, commit, ".gitmodules")
    if text is None:
        return {}
    try:
        out = run_git(repo_path, "config", "--file", "-", "--get-regexp", r"^submodule\..*\.path$",
                      input_bytes=text.encode()).decode()
    except GitError:
        return {}
    names = {}
    for line in out.splitlines():
        key, _, path = line.partition(" ")
        names[path] = key[len("submodule."):-len(".path")]
    return names


def submodule_repository(source: Path | str, commit: str, path: str, sha: str) -> Path | None:
    """A git repository in the source clone that holds the submodule commit ``sha`` of ``path``: the initialised
    submodule's work tree, or its git directory under ``.git/modules/<name>`` (``modules/<name>`` in a bare
    clone). None when none has it (the submodule was never initialised, or is at another commit there)."""
    source = Path(source)
    name = _submodule_names(source, commit).get(path, path)
    candidates = [source / path, source / ".git" / "modules" / name, source / "modules" / name]
    for candidate in candidates:
        if not candidate.exists():
            continue
        try:
            run_git(candidate, "cat-file", "-e", f"{sha}^{{commit}}")
        except GitError:
            continue
        return candidate
    return None


def submodule_state(source: Path | str, commit: str) -> list[dict]:
    """Each submodule of ``commit`` and whether its content can be had from the source clone:
    ``[{"path", "commit", "included"}]`` (empty when the tree has no gitlink)."""
    return [{"path": path, "commit": sha, "included": submodule_repository(source, commit, path, sha) is not None}
            for path, sha in gitlinks(source, commit)]


def export_submodules(source: Path | str, commit: str, dest: Path) -> list[str]:
    """Write the content of every submodule of ``commit`` that the source clone has (``submodule_repository``)
    into the work tree ``dest`` as plain files at its path (no nested ``.git``; git keeps ignoring them, as it
    does the content of any gitlink). Returns the paths of the submodules that could not be had. Nested
    submodules are not followed."""
    missing = []
    for path, sha in gitlinks(source, commit):
        repo = submodule_repository(source, commit, path, sha)
        if repo is None:
            missing.append(path)
            continue
        archive = run_git(repo, "archive", "--format=tar", sha)
        target = dest / path
        target.mkdir(parents=True, exist_ok=True)
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(target, filter="tar")
    return missing


def ls_tree_entries(repo_path: Path | str, commit: str) -> dict[str, str]:
    """Every entry of ``commit``'s tree: path -> ``"<mode> <object id>"`` (blobs, symlinks ``120000``, gitlinks
    ``160000``). Raises ``GitError`` for a missing commit."""
    out = run_git(repo_path, "ls-tree", "-r", "-z", "--full-tree", commit).decode("utf-8", "surrogateescape")
    entries = {}
    for entry in out.split("\0"):
        meta, _, path = entry.partition("\t")
        parts = meta.split()
        if len(parts) == 3:
            entries[path] = f"{parts[0]} {parts[2]}"
    return entries
