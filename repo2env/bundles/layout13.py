"""Harbor schema 1.3 and 1.4 bundles (``--format harbor-1.3`` / ``harbor-1.4``): the repository-recipe layout
with a separate verifier.

A pipeline builds and measures its task in layout 1.0 and describes the split in a ``SplitLayout``; ``convert``
then rewrites the staged bundle in place (the source of the layout: the task-format reference, "Recipe and
Tasksmith bundles (schema 1.3)"):

- ``environment/source/``: the learner's snapshot of the repository at the base commit, the hidden test files
  removed, no ``.git``; ``environment/Dockerfile`` replaces the task image's work tree with it and adds the user
  ``learner``.
- ``tests/source/``: the verifier's full copy (hidden tests and the reference's test-configuration changes
  included, the files the reference deletes left out); ``tests/Dockerfile`` builds the separate verifier image
  with the grader in ``/tests``. Harbor copies the ``artifacts`` (the files the agent may change) from the
  agent's container over ``/workspace`` there, then runs ``/tests/test.sh``.
- ``solution/reference/`` (the reference versions of the artifacts) and ``solution/deleted.txt``, copied into
  place by ``solution/solve.sh``.
- ``contract.json``: the files the agent may submit, the test selectors and the exact test ids that must pass.
- ``task.toml``: ``schema_version = "1.3"``, ``artifacts``, users, resources, and networking off for the agent
  and the verifier.

Schema 1.4 (Harbor 0.24 and later; ``harbor.models.task.config.TaskConfig`` defaults to it) is the same layout
with ``schema_version = "1.4"`` and a package version, ``[task].version``: ``<pipeline version>+<12 hex of
hashing.files_hash>`` (semver build metadata), so that a task whose files change gets a new version and an
unchanged one keeps it. 1.4's other additions (named ``[[steps]]``, fractional ``cpus``) are for multi-step tasks and are not used. The
1.0 layout has no 1.4 spelling here: it grades in the agent's sandbox, which ``harbor lint``'s default rule
``shared-verifier`` reports as a defect under any schema.

For a Python grader (``graders/runtime_verifier.py``) the verifier image also holds the interpreter's standard
library and installed packages compiled into ``BYTECODE`` (a ``PYTHONPYCACHEPREFIX`` tree; the layer comes
right after ``FROM``, so every bundle of one task image shares it), and ``config.json`` names it: grading then
reads that bytecode instead of compiling pytest and the standard library afresh on every run (about 1 s). Nothing
of the agent's reaches it: only the artifacts cross into the verifier's container, under ``/workspace``, and
their modules are compiled afresh as before.

Symlinks are not copied into the snapshots (a bundle holds regular files only); the task image keeps the
repository's tracked symlinks in place.
"""

import json
import re
import shutil
from dataclasses import dataclass, field
from pathlib import PurePosixPath

import git
import tomlkit

from repo2env.bundles.hashing import content_hash, files_hash
from repo2env.bundles.inputs import restamp
from repo2env.bundles.stage import BundleStage
from repo2env.bundles.task_toml import AGENT_USER, clean_none
from repo2env.core import templates
from repo2env.core.errors import GitError
from repo2env.core.limits import MEMORY_MB
from repo2env.graders import runtime_verifier

FORMATS = ("harbor-1.0", "harbor-1.3", "harbor-1.4")
SEPARATE_FORMATS = {"harbor-1.3": "1.3", "harbor-1.4": "1.4"}  # --format -> schema_version of this layout
WORKSPACE = "/workspace"
CONTRACT = "contract.json"
# tests/ entries that stay on the host side of the verifier image build (never copied into /tests)
_BUILD_ONLY = ("Dockerfile", "source", "strip_repository.sh")
BYTECODE = "/opt/r2e/verifier-bytecode"  # the verifier image's compiled standard library and packages (docstring)
# PYTHONPYCACHEPREFIX needs Python 3.8; a bundle's interpreter is a path such as /usr/local/bin/python3.12
_PREFIX_PYTHON = re.compile(r"/python3\.(?:[89]|[1-9][0-9])$")


def _bytecode_step(config: dict) -> str:
    """The verifier Dockerfile's step that compiles the interpreter's standard library and packages into
    ``BYTECODE`` for a Python grader's ``config`` (its ``python``), else "" (another language's runner, an
    interpreter older than 3.8). A failure to compile leaves grading as it was: compiled afresh."""
    python = config.get("python")
    if config.get("language") or not isinstance(python, str) or not _PREFIX_PYTHON.search(python):
        return ""
    return (f"RUN PYTHONPYCACHEPREFIX={BYTECODE} {python} -c \"import compileall, sysconfig; "
            "paths = sysconfig.get_paths(); "
            "[compileall.compile_dir(d, quiet=2, workers=0) for d in sorted({paths['stdlib'], paths['purelib'], "
            "paths['platlib']})]\" > /dev/null 2>&1; chmod -R a+rX,go-w /opt/r2e || true\n")


@dataclass(frozen=True)
class SplitLayout:
    """How one task splits into the learner's and the verifier's copies of the repository.

    Both copies are ``commit``'s tree in ``repo_path`` with an overlay: repository-relative path -> new bytes, or
    None to leave the file out. ``artifacts`` are the repository-relative files the agent may change (collected
    by Harbor); ``reference`` maps each to its reference bytes, or None when the reference deletes it.
    ``test_selectors`` are what the grader runs (pytest paths), ``must_pass`` the exact test ids that must pass.
    """

    repo_path: str
    commit: str
    image_ref: str  # the task image both Dockerfiles start from
    learner: dict[str, bytes | None]
    verifier: dict[str, bytes | None]
    artifacts: list[str]
    reference: dict[str, bytes | None]
    test_selectors: list[str] = field(default_factory=list)
    must_pass: list[str] = field(default_factory=list)
    grader_config: str | None = None  # tests/ file whose JSON gets "prepared": true (the copy is already graded-ready)


def _write_tree(stage: BundleStage, dest: str, repo_path: str, commit: str, overlay: dict[str, bytes | None]) -> int:
    """Write ``commit``'s regular files (modes 0644/0755) with ``overlay`` applied under ``dest`` (a path in the
    bundle); returns the number of files. Symlinks and submodules are left out. Raises ``GitError`` for an
    unknown commit."""
    try:
        tree = git.Repo(repo_path).commit(commit).tree
    except (ValueError, git.BadName) as exc:
        raise GitError(f"{repo_path}: cannot read the tree of {commit}: {exc}") from None
    blobs = {item.path: item for item in tree.traverse()
             if item.type == "blob" and item.mode in (0o100644, 0o100755)}
    for rel, blob in blobs.items():
        if rel not in overlay:
            stage.write_bytes(f"{dest}/{rel}", blob.data_stream.read(), executable=blob.mode == 0o100755)
    written = len([rel for rel in blobs if rel not in overlay])
    for rel, data in overlay.items():
        if data is not None:
            executable = rel in blobs and blobs[rel].mode == 0o100755
            stage.write_bytes(f"{dest}/{rel}", data, executable=executable)
            written += 1
    return written


def _check_paths(layout: SplitLayout) -> None:
    for rel in [*layout.artifacts, *layout.learner, *layout.verifier, *layout.reference]:
        parts = PurePosixPath(rel).parts
        if not parts or PurePosixPath(rel).is_absolute() or ".." in parts:
            raise ValueError(f"{rel!r}: layout paths must be relative to the repository, without '..'")


def _contract(layout: SplitLayout) -> str:
    return json.dumps({
        "schema": "repo2env.contract/1", "workspace": WORKSPACE,
        "submit": [f"{WORKSPACE}/{p}" for p in layout.artifacts],
        "test_selectors": layout.test_selectors, "must_pass": layout.must_pass,
    }, indent=1) + "\n"


_SHARED_RULES = "Grading puts the repository's test files"  # how every language's 1.0 grading paragraph opens
SEPARATE_RULES = ("Grading runs in a separate container: it copies the files listed below from your workspace into "
                  "a fresh copy of the repository whose test files and test configuration are as they were, and runs "
                  "the tests there, so fix the code itself: changes to test files, and any package you install, "
                  "upgrade or remove, are not seen.")


def _instruction(text: str, artifacts: list[str]) -> str:
    """The 1.0 instruction ``text`` for this layout: its closing grading paragraph (1.0's: the tests run in the
    agent's own environment, where a changed package grades 0) replaced by ``SEPARATE_RULES`` (a new user's
    report: the 1.3 text said what 1.3 does not do), then the files that are collected."""
    head, sep, last = text.rstrip("\n").rpartition("\n\n")
    body = head if sep and last.startswith(_SHARED_RULES) else text.rstrip("\n")
    listed = "\n".join(f"- `{WORKSPACE}/{p}`" for p in artifacts)
    return (f"{body}\n\n{SEPARATE_RULES}\n\n## How your work is collected\n\nOnly these files are copied to the "
            f"grader; changes elsewhere are not seen:\n\n{listed}\n")


def pipeline_formats(declared: tuple[str, ...]) -> tuple[str, ...]:
    """The ``--format`` values of a pipeline that declares ``declared``: one that writes the separate-verifier
    layout in schema 1.3 writes it in 1.4 too (module docstring)."""
    if "harbor-1.3" in declared and "harbor-1.4" not in declared:
        return tuple(declared) + ("harbor-1.4",)
    return tuple(declared)


def _task_toml(old: str, layout: SplitLayout, stage: BundleStage, schema: str) -> str:
    """The 1.3/1.4 task.toml, from the 1.0 one: [task] and [metadata] kept, resources and timeouts kept."""
    before = tomlkit.parse(old)
    env = before.get("environment", {})
    memory = int(env.get("memory_mb", MEMORY_MB))
    cpus = env.get("cpus", 1)
    doc = tomlkit.document()
    doc.add(tomlkit.comment(f"Harbor task (schema {schema}), generated by repo2rlenv. Provenance under "
                            "[metadata.repo2env]."))
    doc.add(tomlkit.comment("The verifier grades the artifacts below in its own container, built from tests/."))
    doc["schema_version"] = schema
    artifacts = tomlkit.array()
    for rel in layout.artifacts:
        entry = tomlkit.inline_table()
        entry["source"] = f"{WORKSPACE}/{rel}"
        artifacts.append(entry)
    artifacts.multiline(len(layout.artifacts) > 1)
    doc["artifacts"] = artifacts
    task = before["task"]
    metadata = before["metadata"]
    metadata["repo2env"]["content_hash"] = content_hash(stage.root)
    if schema != "1.3":
        task["version"] = f"{metadata['repo2env']['pipeline_version']}+{files_hash(stage.root)[7:19]}"
    doc["task"] = task
    doc["metadata"] = metadata
    doc["environment"] = clean_none({
        "build_timeout_sec": env.get("build_timeout_sec"), "cpus": cpus, "memory_mb": memory,
        "storage_mb": env.get("storage_mb"), "network_mode": "no-network"})
    doc["agent"] = {"timeout_sec": float(before["agent"]["timeout_sec"]), "user": AGENT_USER,
                    "network_mode": "no-network"}
    verifier = tomlkit.table()
    verifier["timeout_sec"] = float(before["verifier"]["timeout_sec"])
    verifier["user"] = "root"
    verifier["network_mode"] = "no-network"
    verifier["environment_mode"] = "separate"
    verifier["environment"] = {"cpus": cpus, "memory_mb": memory, "network_mode": "no-network"}
    doc["verifier"] = verifier
    return tomlkit.dumps(doc)


def convert(stage: BundleStage, layout: SplitLayout, schema: str = "1.3") -> None:
    """Rewrite the staged 1.0 bundle in ``stage`` into the separate-verifier layout, ``schema_version`` ``schema``
    ("1.3" or "1.4"; see the module docstring), in place; both
    Dockerfiles start from ``layout.image_ref`` (the task image). Raises ``GitError`` when the tree cannot be read,
    ``ValueError`` for a path escaping the repository."""
    _check_paths(layout)
    root = stage.root
    for rel in ("environment", "solution"):
        shutil.rmtree(root / rel, ignore_errors=True)
    for rel in ("tests/test.patch", "tests/config.patch"):
        (root / rel).unlink(missing_ok=True)
    if layout.grader_config:
        path = root / "tests" / layout.grader_config
        config = json.loads(path.read_text())
        config.update({"prepared": True, "overlay": {}})  # the verifier's copy is already as graded
        bytecode = _bytecode_step(config)
        if bytecode:
            config["bytecode"] = BYTECODE
        stage.write_text(f"tests/{layout.grader_config}", json.dumps(config, indent=1) + "\n")
        shutil.rmtree(root / "tests" / runtime_verifier.OVERLAY_DIR, ignore_errors=True)
        restamp(root)
    else:
        bytecode = ""
    grader_files = sorted(p.name for p in (root / "tests").iterdir() if p.name not in _BUILD_ONLY)
    strip = templates.read("strip_repository.sh")
    stage.write_text("environment/strip_repository.sh", strip, executable=True)
    stage.write_text("environment/Dockerfile", templates.render("environment13.Dockerfile", image_ref=layout.image_ref))
    _write_tree(stage, "environment/source", layout.repo_path, layout.commit, layout.learner)
    stage.write_text("tests/strip_repository.sh", strip, executable=True)
    stage.write_text("tests/Dockerfile", templates.render("verifier13.Dockerfile", image_ref=layout.image_ref,
                                                          grader_files=" ".join(grader_files),
                                                          bytecode=bytecode))
    _write_tree(stage, "tests/source", layout.repo_path, layout.commit, layout.verifier)
    for rel, data in sorted(layout.reference.items()):
        if data is not None:
            stage.write_bytes(f"solution/reference/{rel}", data)
    deleted = sorted(rel for rel, data in layout.reference.items() if data is None)
    if deleted:
        stage.write_text("solution/deleted.txt", "".join(f"{rel}\n" for rel in deleted))
    stage.write_text("solution/solve.sh", templates.read("solve13.sh"), executable=True)
    stage.write_text(CONTRACT, _contract(layout))
    stage.write_text("instruction.md", _instruction((root / "instruction.md").read_text(encoding="utf-8"),
                                                    layout.artifacts))
    stage.write_text("task.toml", _task_toml((root / "task.toml").read_text(encoding="utf-8"), layout, stage,
                                                schema))
