"""Image builds: the bootstrap image (one per repository), the task image (one per base commit and recipe) and
the bundle's own environment image (``environment/Dockerfile``, as Harbor builds it).

Tags are hashes of their inputs (the rendered Dockerfile and everything it names), so unchanged inputs hit the
cache and the same inputs give the same tag on every machine, whether the base image was pulled or built locally.
"""

import contextlib
import fcntl
import hashlib
import itertools
import re
import shlex
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import docker
import docker.errors

from repo2env.core import artefacts, gitrepo, templates, timings
from repo2env.core.errors import BuildError, DockerUnavailable
from repo2env.core.records import DEFAULT_PYTHON, InstallRecipe, RepoRef
from repo2env.graders import runtime_verifier
from repo2env.environment import image_uses

UV_VERSION = "0.13.9"
_build_locks: dict[str, threading.Lock] = {}


def _digest(*parts: str, n: int = 12) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:n]


def _repo_component(slug: str) -> str:
    return "__".join(gitrepo.docker_safe(part) for part in slug.split("/"))


def image_exists(client: docker.DockerClient, tag: str) -> bool:
    try:
        client.images.get(tag)
        return True
    except docker.errors.ImageNotFound:
        return False


@contextlib.contextmanager
def _tag_lock(tag: str):
    """One build of ``tag`` at a time: across threads (a lock per tag) and processes on this machine (``flock``
    on a file named by the tag's hash), so parallel workers never build the same image twice."""
    folder = Path(tempfile.gettempdir()) / "repo2rlenv-build-locks"
    folder.mkdir(exist_ok=True)
    with _build_locks.setdefault(tag, threading.Lock()), open(folder / f"{_digest(tag, n=16)}.lock", "w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


LABEL_TOOL = "io.repo2rlenv.tool"  # on every image repo2rlenv builds (value: the kind: bootstrap, env, bundle)
LABEL_DATASET = "io.repo2rlenv.dataset"  # the --out folder (or dataset folder) of the run that built it
LABEL_TASK = "io.repo2rlenv.task"  # the task id, on bundle images
LABEL_REPO = "io.repo2rlenv.repo"  # owner/name, on bootstrap and env images
_dataset: list[str] = []  # the folder of the running generate/build: set_dataset()


def set_dataset(folder: Path | None) -> None:
    """Record the output folder of this process's run: images built from now on carry it (``LABEL_DATASET``),
    so ``repo2rlenv clean --dataset`` can tell them."""
    _dataset[:] = [str(folder.resolve())] if folder is not None else []


def note_use(tag: str) -> None:
    """Record that the running generate/build's folder uses the image ``tag`` (``image_uses``), built or found."""
    if _dataset:
        from repo2env.sources.clone_cache import default_cache_dir  # noqa: PLC0415

        image_uses.record(default_cache_dir(), tag, _dataset[0])


def image_labels(kind: str, **extra: str) -> dict[str, str]:
    """The labels of an image of ``kind`` built now: the tool's, the run's dataset folder, and ``extra``
    (``task=`` / ``repo=``)."""
    labels = {LABEL_TOOL: kind, **({LABEL_DATASET: _dataset[0]} if _dataset else {})}
    names = {"task": LABEL_TASK, "repo": LABEL_REPO}
    labels.update({names[k]: v for k, v in extra.items() if v})
    return labels


_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-B]")  # colour and cursor codes (ECMA-48 CSI)


def plain_log(chunks) -> str:
    """The text of a build log's chunks (the SDK's ``{"stream": ...}`` / ``{"error": ...}``) without terminal
    colour codes: uv and pip colour every character when they think a terminal is there, which left a build log
    unreadable and ungreppable."""
    return _ANSI.sub("", "".join(chunk.get("stream", "") or chunk.get("error", "") for chunk in chunks))


def build(client: docker.DockerClient, context: Path, tag: str, *, timeout_sec: int = 3600,
          labels: dict[str, str] | None = None) -> float:
    """``docker build`` of ``context`` as ``tag`` with the SDK, carrying ``labels``; returns seconds (0.0 when
    another worker built it meanwhile). Raises ``BuildError`` with the log tail when the build fails."""
    start = time.monotonic()
    with _tag_lock(tag):
        if image_exists(client, tag):
            return 0.0
        labels = labels or image_labels("other")
        kind = labels.get(LABEL_TOOL, "other")
        try:
            with timings.stage("image build"):
                _, log = client.images.build(path=str(context), tag=tag, rm=True, forcerm=True, pull=False,
                                             timeout=timeout_sec, labels=labels)
            artefacts.record(f"image-{kind}", ".log", f"# {tag}\n" + plain_log(log))
        except docker.errors.BuildError as exc:
            text = plain_log(exc.build_log)
            artefacts.record(f"image-{kind}", ".log", f"# {tag} (failed)\n" + text)
            tail = text[-6000:]
            raise BuildError(f"building {tag} failed: {build_cause(tail) or str(exc)}"[:400], tail) from None
        except docker.errors.APIError as exc:
            raise BuildError(f"building {tag} failed: {exc.explanation or exc}") from None
    return time.monotonic() - start


_DOCKER_LINE = re.compile(r"^(The command .* returned a non-zero code|Removing intermediate container|---> )")


def build_cause(log: str) -> str:
    """The lines of a failed build's log that say why, as one line: the installer's first error (uv's
    ``error: ...`` or ``× ...``) and the last thing said under it (the back end's own message from its
    ``[stderr]``, the resolver's ``Because ...``, an ``...Error: ...``), npm's code line, Maven's ``Failed to
    execute goal …`` (or its resolution error), else the last line that is not Docker's own; with Docker's exit
    code."""
    log = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", log)
    code = re.search(r"returned a non-zero code: (\d+)", log)
    lines = [ln.strip() for ln in log.splitlines() if ln.strip() and not _DOCKER_LINE.match(ln.strip())
             and not re.search(r"A complete log of this run can be found in|^npm (?:error|ERR!)\s*$", ln.strip())]
    exit_note = f" (exit {code.group(1)})" if code else ""
    for i, line in enumerate(lines):
        if line.startswith(("error:", "×", "ERROR:")):
            segment = list(itertools.takewhile(lambda ln: not ln.startswith(("hint:", "help:")), lines[i + 1:]))
            said = [ln for ln in segment if not ln.startswith(("[stderr]", "[stdout]"))
                    and not re.fullmatch(r"[\^~\s]+", ln)]
            stderr = [ln for ln in segment[segment.index("[stderr]") + 1:] if not re.fullmatch(r"[\^~\s]+", ln)] \
                if "[stderr]" in segment else []
            errors = [ln for ln in said if re.search(r"\w(Error|Exception): ", ln) or ln.lower().startswith("error:")]
            # the back end's own last word, else uv's "cause:" line
            errors = errors or stderr[-1:] or [ln[len("cause:"):].strip() for ln in said if ln.startswith("cause:")][-1:]
            last = (errors or said or [""])[-1]
            why = next((j for j, ln in enumerate(said) if ln.startswith("╰─▶")), None)
            if not errors and why is not None:  # the resolver's reason, wrapped over several lines
                last = " ".join([said[why].lstrip("╰─▶ ")] + list(
                    itertools.takewhile(lambda ln: not ln.startswith(("╰", "├", "×", "error:")), said[why + 1:])))
            head = line.lstrip("× ").strip()
            return "; ".join([head] + ([last] if last and last != head else []))[:300] + exit_note
    npm = [ln for ln in lines if re.match(r"^npm (?:error|ERR!) ", ln)]
    if npm:  # npm's own code line and what it says
        coded = next((i for i, ln in enumerate(npm) if re.match(r"^npm (?:error|ERR!) code ", ln)), None)
        said = npm[coded:coded + 2] if coded is not None else npm[-1:]
        return "; ".join(ln.split(" ", 2)[-1] for ln in said)[:300] + exit_note
    maven = [ln[len("[ERROR] "):] for ln in lines if ln.startswith("[ERROR] Failed to execute goal")
             or ln.startswith("[ERROR] Could not resolve") or ln.startswith("[ERROR] Non-resolvable")]
    if maven:  # Maven's own statement of the failure (its last [ERROR] lines are help links)
        return maven[0][:300] + exit_note
    named = [ln for ln in lines if re.match(r"^(E):|.*\w(Error|Exception): ", ln)]
    return (named[-1] if named else (lines[-1] if lines else ""))[:300] + exit_note


def require_base_image(client: docker.DockerClient, base_image: str | None = None) -> None:
    """Raise ``DockerUnavailable`` (with the fix) when the base image (default: ``BASE_IMAGE``) is missing."""
    base_image = base_image or BASE_IMAGE
    if not image_exists(client, base_image):
        raise DockerUnavailable(f"base image {base_image} is missing; run `bash scripts/setup_docker.sh` "
                                "(pulls it, or builds a local stand-in where no registry answers)")


def base_image_for(python: str) -> str:
    """The base image for a Python version: ``python:<version>-slim``."""
    return f"python:{python}-slim"


BASE_IMAGE = base_image_for(DEFAULT_PYTHON)


def recipe_base_image(recipe: InstallRecipe) -> str:
    """The image a recipe builds on: its ``base_image`` (a toolchain language's, ``scripts/setup_docker.sh``
    builds it), else ``python:<recipe.python>-slim``."""
    return recipe.base_image or base_image_for(recipe.python)


def bootstrap_image(client: docker.DockerClient, repo: RepoRef, recipe: InstallRecipe) -> str:
    """Ensure the bootstrap image for ``repo`` exists; returns its tag ``local/r2e-bootstrap/<repo>:<hash12>``.

    Raises ``BuildError`` when the base image for ``recipe.python`` is missing (with how to make it)."""
    base_image = recipe_base_image(recipe)
    if not image_exists(client, base_image):
        fix = ("bash scripts/setup_docker.sh` on a host with that toolchain" if recipe.base_image else
               f"R2E_BASE_IMAGE={base_image} R2E_PYTHON_HOME=<a CPython of that version> bash scripts/setup_docker.sh`")
        raise BuildError(f"base image {base_image} is missing; run `{fix}")
    dockerfile = templates.render("bootstrap.Dockerfile", base_image=base_image, uv_version=UV_VERSION,
                                  apt_packages=" ".join(shlex.quote(p) for p in recipe.apt_packages))
    tag = f"local/r2e-bootstrap/{_repo_component(repo.slug)}:{_digest(dockerfile)}"
    note_use(tag)
    if not image_exists(client, tag):
        with tempfile.TemporaryDirectory(prefix="r2e-bootstrap-") as tmp:
            (Path(tmp) / "Dockerfile").write_text(dockerfile)
            build(client, Path(tmp), tag, labels=image_labels("bootstrap", repo=repo.slug))
    return tag


def task_image(client: docker.DockerClient, repo: RepoRef, base_commit: str, recipe: InstallRecipe,
               bootstrap_tag: str, submodules: list[dict] | None = None) -> tuple[str, float]:
    """Ensure the task image (repository at ``base_commit`` with its dependencies) exists.

    Returns ``(tag, build_seconds)``; build_seconds is 0.0 on a cache hit. The build context is a scrubbed copy
    of the repository (see ``gitrepo.scrubbed_copy``) with the content of each submodule the source clone has
    (``gitrepo.export_submodules``); ``submodules`` is ``gitrepo.submodule_state`` of the base commit when the
    caller has it already. Raises ``BuildError``.
    """
    env_lines = "\n".join(f"ENV {k}={shlex.quote(v)}" for k, v in sorted(recipe.env.items()))
    install = " && ".join(recipe.commands) or "true"
    python = not recipe.base_image  # a toolchain language's image gets no Python bytecode tree
    dockerfile = templates.render("task.Dockerfile", bootstrap_image=bootstrap_tag, env_lines=env_lines,
                                  install_command=install, bytecode_step=_bytecode_step() if python else "")
    # Submodule content is in the image when the source clone has it: which ones is part of the image's identity.
    dockerfile += "".join(f"# submodule {s['path']} at {s['commit']}: {'included' if s['included'] else 'missing'}\n"
                          for s in (submodules if submodules is not None
                                    else gitrepo.submodule_state(repo.path, base_commit)))

    def context(folder: Path) -> None:
        gitrepo.scrubbed_copy(repo.path, base_commit, folder / "repo")
        gitrepo.export_submodules(repo.path, base_commit, folder / "repo")
        if python:
            (folder / BYTECODE_SCRIPT).write_text(templates.read(BYTECODE_SCRIPT))

    return _env_image(client, repo, base_commit, dockerfile, context)


BYTECODE_SCRIPT = "bytecode_tree.py"  # templates/bytecode_tree.py, run in a Python task image's last build step


def _bytecode_step() -> str:
    """The Python task image's last build step: ``templates/bytecode_tree.py`` compiles what the tests'
    collection imports of the standard library and packages into ``runtime_verifier.BYTECODE_TREE`` (the
    script's sha256 is in the step, so a changed script makes another image)."""
    digest = hashlib.sha256(templates.read(BYTECODE_SCRIPT).encode()).hexdigest()[:16]
    return (f"# The standard library and packages the tests import, compiled ({BYTECODE_SCRIPT}, sha256 {digest})\n"
            f"COPY {BYTECODE_SCRIPT} /tmp/r2e-{BYTECODE_SCRIPT}\n"
            f"RUN PYTHONHASHSEED=0 python3 /tmp/r2e-{BYTECODE_SCRIPT} {runtime_verifier.BYTECODE_TREE}; "
            f"rm -f /tmp/r2e-{BYTECODE_SCRIPT}\n")


def _env_image(client: docker.DockerClient, repo: RepoRef, commit: str, dockerfile: str,
               context: Callable[[Path], None]) -> tuple[str, float]:
    """The task image ``local/r2e-env/<repo>:<commit>-<digest of dockerfile>``: ``(tag, 0.0)`` when it exists,
    else built from a temporary folder holding ``dockerfile`` and what ``context(folder)`` writes there."""
    tag = f"local/r2e-env/{_repo_component(repo.slug)}:{commit[:12]}-{_digest(dockerfile, n=8)}"
    note_use(tag)
    if image_exists(client, tag):
        return tag, 0.0
    tmp = Path(tempfile.mkdtemp(prefix="r2e-task-"))
    try:
        context(tmp)
        (tmp / "Dockerfile").write_text(dockerfile)
        return tag, build(client, tmp, tag, labels=image_labels("env", repo=repo.slug))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def derived_task_image(client: docker.DockerClient, repo: RepoRef, parent_tag: str, parent_commit: str,
                       ref: str) -> tuple[str, float]:
    """The task image of the commit the ref ``ref`` of ``repo`` names, a descendant of ``parent_commit`` with the
    same dependencies (a synthetic bug in a source file): ``parent_tag`` (the task image of ``parent_commit``) with
    the commits after it fetched from a git bundle of ``parent_commit..ref`` and checked out, so the install is
    never repeated. Returns ``(tag, build_seconds)``, 0.0 on a cache hit. Raises
    ``BuildError``, ``GitError``."""
    commit = gitrepo.run_git(repo.path, "rev-parse", "--verify", ref).decode().strip()
    dockerfile = templates.render("derived_task.Dockerfile", parent_image=parent_tag, commit=commit, ref=ref)
    return _env_image(client, repo, commit, dockerfile, lambda folder: gitrepo.run_git(
        repo.path, "bundle", "create", "-q", str(folder / "commits.bundle"), f"{parent_commit}..{ref}"))


def environment_tag(environment_dir: Path, task_id: str) -> str:
    """``local/r2e-bundle/<task id>:<12 hex>``: the tag ``environment_image`` gives the build of
    ``environment_dir``, named by its content (every file's path and bytes)."""
    h = hashlib.sha256()
    for path in sorted(environment_dir.rglob("*")):
        if path.is_file():
            h.update(path.relative_to(environment_dir).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return f"local/r2e-bundle/{gitrepo.docker_safe(task_id)}:{h.hexdigest()[:12]}"


def run_image(client: docker.DockerClient, bundle: Path, config: dict, task_id: str, *, verifier: bool = False) -> str:
    """The image Harbor runs a bundle's agent in (``verifier``: its separate verifier in): the pinned
    ``[environment].docker_image`` (``[verifier.environment].docker_image``) when the task names one, pulled
    when this engine lacks it (Harbor's docker environment uses a task's ``docker_image`` instead of building,
    ``harbor.environments.definition.should_use_prebuilt_docker_image``), else the build of ``environment/``
    (``tests/``). ``config``: the parsed task.toml. Raises ``BuildError`` when neither works."""
    table = ((config.get("verifier") or {}).get("environment") if verifier else config.get("environment")) or {}
    ref = table.get("docker_image")
    if ref:
        if not image_exists(client, ref):
            try:
                client.images.pull(ref)
            except docker.errors.DockerException as exc:
                raise BuildError(f"{task_id}: cannot pull its docker_image {ref}: {str(exc)[:200]}") from None
        return ref
    if verifier:
        return environment_image(client, bundle / "tests", task_id + "-verifier")
    return environment_image(client, bundle / "environment", task_id)


def environment_image(client: docker.DockerClient, environment_dir: Path, task_id: str) -> str:
    """Build a bundle's ``environment/`` directory as Harbor would; returns the tag (``environment_tag``).
    Raises ``BuildError``."""
    tag = environment_tag(environment_dir, task_id)
    note_use(tag)
    if not image_exists(client, tag):
        dockerfile = environment_dir / "Dockerfile"
        base = re.search(r"^FROM\s+(\S+)", dockerfile.read_text(), re.MULTILINE) if dockerfile.is_file() else None
        if base and base.group(1).startswith("local/") and not image_exists(client, base.group(1)):
            # a task image of this machine that is gone (cleaned, or built elsewhere): Docker would look for it
            # on Docker Hub and say "no such host"
            raise BuildError(f"{task_id}: its task image {base.group(1)} is not on this Docker engine (removed by "
                             "`clean`, or built on another machine); build it again with `repo2rlenv generate ... "
                             "--force`, or `pull` a dataset pushed with its images")
        build(client, environment_dir, tag, labels=image_labels("bundle", task=task_id))
    return tag
