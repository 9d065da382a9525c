"""repo_mutate's kit: synthetic bugs at one revision of a repository (``pipelines/repo_mutate.py`` is the plugin).

- ``strategies``: the bug generators (named, versioned, source-preserving edits of one function);
- ``commits``: each mutant and its fix as commits of a scratch repository that borrows the clone's objects;
- ``callmap`` (with ``callmap_plugin``, run in the container): which tests call which function at the revision;
- ``Revision`` (here): the revision's environment (one image, built by the environment ladder, reused by every
  mutant through ``environment.images.derived_task_image``), its call map, and the run targets of a mutant.
"""

import ast
import hashlib
import json
import random
import threading
from dataclasses import dataclass, replace
from pathlib import Path

from repo2env import languages
from repo2env.core import gitrepo
from repo2env.core.errors import InputError, TestRunError
from repo2env.core.metadata import MutateTests
from repo2env.core.outcomes import SkipReason
from repo2env.core.records import RepoRef, Skip
from repo2env.environment import images
from repo2env.environment.ladder import first_image
from repo2env.environment.task_image import TaskImage
from repo2env.tasks.common import DEFAULT_PYTHON_PATH
from repo2env.tasks.mutate.callmap import CallMap, build_callmap
from repo2env.tasks.mutate.commits import bug_ref, mutant_commits, scratch_repo
from repo2env.tasks.mutate.strategies import (
    COMBINE,
    STRATEGIES,
    Edit,
    Mutation,
    combinations,
    function_mutations,
    functions,
    is_mutable_file,
    still_parses,
)


STRATEGY_NAMES = tuple(STRATEGIES) + (COMBINE,)  # what --pipeline-opt strategies= accepts


@dataclass(frozen=True)
class MutantCandidate:
    """One candidate of repo_mutate: ``mutation`` at ``revision`` (a 40-hex sha)."""

    revision: str
    mutation: Mutation


@dataclass(frozen=True)
class MutantImage:
    """A mutant's commits (``base_commit``: the bug, ``head_commit``: the fix) and its ``task_image``."""

    base_commit: str
    head_commit: str
    task_image: TaskImage


def _rank(seed: int, *parts: str) -> str:
    return hashlib.sha256("\0".join((str(seed),) + parts).encode()).hexdigest()


def revision_mutations(repo_path: str, revision: str, strategies: tuple[str, ...], per_function: int,
                       seed: int) -> list[MutantCandidate]:
    """Up to ``per_function`` mutants of every function of the repository's own Python files at ``revision``
    (``strategies.is_mutable_file``), chosen by ``seed``, the whole list in an order ``seed`` decides (so that
    ``--limit`` and ``max_tasks`` sample across the repository, not its first file). ``combine`` in
    ``strategies`` adds pairs of two edits of one function to each function's pool."""
    single = tuple(s for s in strategies if s != COMBINE)
    found = []
    for path in sorted(p for p in gitrepo.ls_tree(repo_path, revision) if is_mutable_file(p)):
        data = gitrepo.file_bytes(repo_path, revision, path)
        if data is None:
            continue
        for function, pool in function_mutations(path, data, single).items():
            if COMBINE in strategies:
                pool = pool + combinations(pool)
            chosen = []
            for m in sorted(pool, key=lambda m: _rank(seed, path, function, m.key)):
                if len(chosen) == per_function:
                    break
                if still_parses(m, data):
                    chosen.append(m)
            found.extend(MutantCandidate(revision=revision, mutation=m) for m in chosen)
    return sorted(found, key=lambda c: _rank(seed, c.mutation.key))


def planted_mutations(spec: Path, repo_path: str, revision: str) -> list[MutantCandidate]:
    """Hand-planted bugs from the JSON file ``spec``: ``[{"path": ..., "find": ..., "replace": ...}]``, each the
    first occurrence of ``find`` in ``path`` at ``revision`` replaced (strategy ``planted``). Raises
    ``InputError`` naming the entry that cannot be planted (no such file, text not found, not in a function)."""
    try:
        entries = json.loads(spec.read_text())
    except (OSError, ValueError) as exc:
        raise InputError(f"--pipeline-opt planted={spec}: not a readable JSON list ({exc})") from None
    made = []
    for n, entry in enumerate(entries if isinstance(entries, list) else [None]):
        if not isinstance(entry, dict) or not {"path", "find", "replace"} <= set(entry):
            raise InputError(f"{spec}: entry {n} needs \"path\", \"find\" and \"replace\"")
        data = gitrepo.file_bytes(repo_path, revision, entry["path"])
        find = entry["find"].encode()
        at = data.find(find) if data is not None else -1
        if at < 0:
            raise InputError(f"{spec}: entry {n}: {entry['find']!r} is not in {entry['path']} at {revision[:12]}")
        line = data.count(b"\n", 0, at) + 1
        enclosing = _enclosing_function(entry["path"], data, line)
        if enclosing is None:
            raise InputError(f"{spec}: entry {n}: line {line} of {entry['path']} is in no function")
        name, lines = enclosing
        made.append(MutantCandidate(revision=revision, mutation=Mutation(
            path=entry["path"], function=name, line=line, strategy="planted", description=f"planted #{n}",
            edits=(Edit(at, at + len(find), entry["replace"].encode()),), function_lines=lines)))
    return made


def _enclosing_function(path: str, data: bytes, line: int) -> tuple[str, tuple[int, ...]] | None:
    """The innermost function around ``line``: (qualified name, its def and decorator lines)."""
    try:
        tree = ast.parse(data)
    except SyntaxError:
        return None
    best = None
    for name, fn in functions(tree):
        if fn.lineno <= line <= fn.end_lineno and (best is None or fn.lineno >= best[1].lineno):
            best = (name, fn)
    if best is None:
        return None
    name, fn = best
    return name, tuple(sorted({fn.lineno, *(d.lineno for d in fn.decorator_list)}))


MAX_ARTIFACTS = 100


def package_files(repo_path: str, commit: str, path: str, limit: int = MAX_ARTIFACTS) -> list[str]:
    """The source files of the package that holds ``path`` at ``commit`` (``strategies.is_mutable_file`` files
    under the same top folder, ``src/<name>`` for a src layout), ``path`` first, at most ``limit``: a mutant's
    artifacts, so that the files the grader collects do not tell which one holds the bug."""
    parts = path.split("/")
    depth = 2 if parts[0] == "src" and len(parts) > 2 else 1
    prefix = "/".join(parts[:depth]) + "/" if len(parts) > depth else ""
    same = sorted(p for p in gitrepo.ls_tree(repo_path, commit) if is_mutable_file(p) and p != path
                  and (p.startswith(prefix) if prefix else "/" not in p))
    return [path] + same[:limit - 1]


def with_package_artifacts(layout):
    """``layout`` (a ``bundles.layout13.SplitLayout``) whose artifacts are every source file of the package that
    holds its first artifact (``package_files``), each with its reference version (the unchanged ones as they
    are at ``layout.commit``): the files the grader collects do not tell which one holds the bug, and the oracle
    writes them all back."""
    artifacts = sorted(set(package_files(layout.repo_path, layout.commit, layout.artifacts[0])) | set(layout.artifacts))
    reference = dict(layout.reference)
    for rel in artifacts:
        if rel not in reference:
            reference[rel] = gitrepo.file_bytes(layout.repo_path, layout.commit, rel)
    return replace(layout, artifacts=artifacts, reference=reference)


class Revision:
    """The revision mutants are planted in: ``source`` (the clone as given), ``repo`` (the scratch repository
    every mutant commit is written to; task ids and metadata keep the source's name), ``commit``, and the
    ``work`` folder (scratch repository and call maps, beside ``--out``)."""

    def __init__(self, source: RepoRef, repo: RepoRef, commit: str, work: Path):
        self.source, self.repo, self.commit, self.work = source, repo, commit, work
        self.image: TaskImage | None = None
        self.callmap: CallMap | None = None
        self._skip: Skip | None = None
        self._lock = threading.Lock()

    @classmethod
    def open(cls, source: RepoRef, commit: str, work: Path) -> "Revision":
        """The revision ``commit`` of ``source``, its scratch repository to be ``work/repo.git`` (made by the first
        ``prepare``: planning and ``--dry-run`` write nothing)."""
        return cls(source, source.model_copy(update={"path": str(work / "repo.git")}), commit, work)

    def prepare(self, ctx) -> Skip | None:
        """Once per run (every candidate waits for the first): the revision's task image (the environment
        ladder's first rung that builds) and its call map. A Skip, the same for every candidate, when the
        language is not Python, no rung builds or the suite does not run."""
        with self._lock:
            if self._skip is not None or self.callmap is not None:
                return self._skip
            scratch_repo(self.source.path, Path(self.repo.path))
            language, detection = languages.for_commit(self.repo.path, self.commit)
            if language.name != "python":
                self._skip = Skip(SkipReason.LANGUAGE_UNSUPPORTED, f"{language.name}: repo_mutate plants bugs in "
                                  "Python code only (other languages through the same seam next)")
                return self._skip
            found = first_image(ctx, language, self.repo, self.commit)
            if isinstance(found, Skip):
                self._skip = found
                return found
            self.image = found[0]
            digest = hashlib.sha256(self.image.image_ref.encode()).hexdigest()[:8]
            cache = self.work / f"callmap-{self.commit[:12]}-{digest}.json"
            try:
                self.callmap = build_callmap(ctx.client, self.image.image_ref, DEFAULT_PYTHON_PATH, cache,
                                             memory_mb=4096, cpus=None, report=ctx.report)
            except TestRunError as exc:
                self._skip = Skip(SkipReason.TEST_ENVIRONMENT_BROKEN, f"at {self.commit[:12]}: {exc}")
            return self._skip

    def mutant_image(self, ctx, mutation: Mutation) -> MutantImage:
        """The mutant's commits and task image (``images.derived_task_image`` of the revision's). Raises
        ``BuildError``, ``GitError``."""
        bug, fix = mutant_commits(self.repo.path, self.commit, mutation)
        tag, seconds = images.derived_task_image(ctx.client, self.repo, self.image.image_ref, self.commit,
                                                 bug_ref(mutation))
        image = TaskImage(image_ref=tag, recipe=self.image.recipe, bootstrap=self.image.bootstrap,
                          build_seconds=self.image.build_seconds, submodules=self.image.submodules)
        return MutantImage(base_commit=bug, head_commit=fix, task_image=image)

    def targets(self, covering: list[str], key: str, sample: int) -> list[str]:
        """The test files a mutant's runs target: those of the ``covering`` tests, and ``sample`` other files of
        passing tests chosen by the mutation's ``key`` (PASS_TO_PASS beyond the function's own tests)."""
        own = sorted({t.split("::", 1)[0] for t in covering})
        others = [f for f in self.callmap.test_files() if f not in own]
        rng = random.Random(key)
        return own + sorted(rng.sample(others, min(sample, len(others))))

    @staticmethod
    def tests_table():
        return MutateTests

    def close(self) -> None:
        """Nothing is held between runs: images and call maps are cached by their content."""

