"""repo_mutate: synthetic bugs planted in working code, kept when the repository's own tests catch them.

Stages: the revision (``--branch``, default HEAD) -> every function of the repository's own Python code -> bug
generators (``repo2env.tasks.mutate.strategies``; ``--pipeline-opt strategies=``), ``per_function`` of them per
function, shuffled by ``seed`` -> per mutant: the tests that call the function (the revision's call map, one
run of the suite, cached) -> the mutant and its fix as commits of a scratch repository -> the runtime task on the
mutant's image (the revision's, with the mutant checked out: the install is never repeated): ``--runs-before``
runs without the fix and one with it (the fix is the revision, whose suite already passed in the call-map run),
FAIL_TO_PASS / PASS_TO_PASS -> the gate's own drops (equivalent, breaks too much, duplicate) ->
the statement from what the failing tests observed -> a schema 1.3 bundle. The core runs the controls and probes.

Pipeline options (``--pipeline-opt KEY=VALUE``): ``strategies`` (comma-separated names; default every one but
``combine``), ``per_function`` (mutants tried per function, default 2), ``max_tasks`` (stop after this many
tasks in ``--out``, default 100), ``seed`` (sampling, default 0), ``max_break_share`` (drop a mutant that fails
more than this share of the tests run, default 0.5), ``sample_files`` (test files beyond the covering ones run
for PASS_TO_PASS, default 2), ``planted`` (a JSON file of hand-planted bugs, ``[{"path", "find", "replace"}]``,
tried first).
"""

import hashlib
import json
import threading
from dataclasses import dataclass, replace
from pathlib import Path

import tomlkit

from repo2env.pipeline import (
    BuildContext,
    Draft,
    GenerateOptions,
    InputError,
    MutantCandidate,
    Plan,
    RepoRef,
    Revision,
    RuntimeSpec,
    Skip,
    SkipReason,
    STRATEGY_NAMES,
    build_runtime_task,
    existing_file,
    integer,
    open_source,
    with_package_artifacts,
    parse_pipeline_opts,
    planted_mutations,
    reject_pr_filters,
    resolve_commit,
    revision_mutations,
    share,
    some_of,
    split_at,
    whole_number,
)

OPTIONS = {
    "strategies": (some_of(*STRATEGY_NAMES), None, "bug generators to use (default: all but combine)"),
    "per_function": (whole_number, 2, "mutants tried per function"),
    "max_tasks": (whole_number, 100, "stop once --out holds this many repo_mutate tasks"),
    "seed": (integer, 0, "seed of the sampling (same seed, same candidates)"),
    "max_break_share": (share, 0.5, "drop a mutant that fails more than this share of the tests run"),
    "sample_files": (whole_number, 2, "test files beyond the covering ones run for PASS_TO_PASS"),
    "planted": (existing_file, None, "JSON file of hand-planted bugs: [{\"path\", \"find\", \"replace\"}]"),
}
RECIPE, RECIPE_VERSION = "swe_smith", "1"
TITLE = "A regression: code that used to work gives wrong results"


@dataclass
class _Kept:
    """What this run has kept, for the gate's duplicate rule and ``max_tasks`` (filled from ``--out`` first)."""

    signatures: set
    count: int


class RepoMutatePipeline:
    """Synthetic bugs as runtime tasks in schema 1.3 bundles, SWE-smith's way: break working code, keep the breaks
    the repository's own tests catch.

    The repo_mutate pipeline plugin (see ``repo2env.pipeline.Pipeline``)."""

    name = "repo_mutate"
    version = "0.1.0"
    options = OPTIONS
    formats = ("harbor-1.3",)

    def __init__(self) -> None:
        self._revision: Revision | None = None
        self._opts: dict = {}
        self._lock = threading.Lock()
        self._kept = _Kept(set(), 0)

    def plan(self, source: str, options: GenerateOptions) -> Plan:
        """The mutants of the revision (``--branch``, default HEAD) in sampling order; ``--limit`` caps them.
        Raises ``InputError`` for a bad option, source or revision."""
        if options.numbers:
            raise InputError("--pr: repo_mutate plants bugs at one revision; choose it with --branch")
        if options.since or options.until:
            raise InputError("--since/--until: repo_mutate plants bugs at one revision; choose it with --branch")
        reject_pr_filters(options, self.name)
        self._opts = parse_pipeline_opts(options.pipeline_opts, self.name, OPTIONS)
        strategies = self._opts["strategies"] or tuple(s for s in STRATEGY_NAMES if s != "combine")
        opened = open_source(source, branch=options.branch, github_url=options.github_url,
                             cache_dir=options.cache_dir, max_wait=options.github_max_wait)
        revision = resolve_commit(opened.repo, options.branch or "HEAD")
        work = options.out.parent / (options.out.name + ".mutate")
        self._revision = Revision.open(opened.repo, revision, work)
        repo, source = self._revision.repo, opened.repo.path
        planted = []
        if self._opts["planted"]:
            planted = planted_mutations(self._opts["planted"], source, revision)
        candidates = planted + revision_mutations(source, revision, strategies, self._opts["per_function"],
                                                  self._opts["seed"])
        self._kept = _read_kept(options.out)
        return Plan(repo=repo, candidates=candidates[:options.limit] if options.limit else candidates,
                    empty_hint=f"no Python function at {revision[:12]} gave a mutant (strategies: "
                               f"{', '.join(strategies)})")

    def candidate_key(self, candidate: MutantCandidate) -> str:
        return f"mutant:{candidate.mutation.key}"

    def candidate_fingerprint(self, candidate: MutantCandidate) -> str:
        m = candidate.mutation
        return json.dumps({"revision": candidate.revision, "key": m.key, "strategy": m.strategy,
                           "version": m.version, "function": m.function}, sort_keys=True)

    def task_id(self, repo: RepoRef, candidate: MutantCandidate) -> str:
        return f"{repo.task_prefix}-mutant-{candidate.mutation.key}"

    def build(self, repo: RepoRef, candidate: MutantCandidate, ctx: BuildContext) -> Draft | Skip:
        opts, m = self._opts, candidate.mutation
        with self._lock:
            if self._kept.count >= opts["max_tasks"]:
                return Skip(SkipReason.MAX_TASKS_REACHED, f"{self._kept.count} tasks in --out")
        revision = self._revision
        prepared = revision.prepare(ctx)  # the revision's image and call map, once per run
        if isinstance(prepared, Skip):
            return prepared
        covering = revision.callmap.covering(m.path, m.function_lines)
        if not covering:
            return Skip(SkipReason.NO_COVERING_TEST, f"{m.function} ({m.path}) is called by no passing test")
        ctx.report(f"mutant {m.key}: {m.strategy} in {m.function}")
        image = revision.mutant_image(ctx, m)
        targets = revision.targets(covering, m.key, opts["sample_files"])
        split = split_at(repo, image.base_commit, image.head_commit)
        split = split.model_copy(update={"test_files": tuple(targets)})
        spec = RuntimeSpec(
            task_id=self.task_id(repo, candidate), pipeline=self.name, pipeline_version=self.version, repo=repo,
            base_commit=image.base_commit, head_commit=image.head_commit, title=TITLE, body="", reference=None,
            split=split, tests_table=revision.tests_table(), category="bugfix", image=image.task_image,
            runs_after=1,  # the fix is the revision itself, whose suite passed in the call-map run
            table_fields={"revision": revision.commit, "strategy": m.strategy, "strategy_version": m.version,
                          "mutated_file": m.path, "function": m.function, "line": m.line,
                          "description": m.description, "mutation_key": m.key, "seed": opts["seed"]},
            metadata={"recipe": RECIPE, "recipe_version": RECIPE_VERSION,
                      "repository": repo.web_url or repo.slug,
                      "source_revision": revision.commit, "quality_status": "exported"})
        result = build_runtime_task(spec, ctx)
        if isinstance(result, Skip):
            if result.reason == SkipReason.NO_FAIL_TO_PASS:
                return Skip(SkipReason.EQUIVALENT_MUTANT, result.detail)
            return result
        return self._gate(result, split.gold_patch)

    def _gate(self, draft: Draft, gold_patch: str) -> Draft | Skip:
        """The gate's rules on a built task: not more than ``max_break_share`` of the tests run fail, not a
        duplicate of a kept mutant (same FAIL_TO_PASS, same normalised diff); the counts go into
        ``[metadata.repo2env]``. The schema 1.3 split is the runtime one: the graded test files are in the
        verifier's copy only (an agent that knew every graded test's name could tell the grader's sentinel tests
        from them)."""
        root = draft.stage.root
        doc = tomlkit.parse((root / "task.toml").read_text())
        meta = doc["metadata"]["repo2env"]
        if not (meta.get("leak_audit") or {}).get("observed"):  # the title is the same for every mutant
            draft.stage.discard()
            return Skip(SkipReason.INSTRUCTION_TOO_THIN, "the failing tests observed nothing a user would report, "
                                                         "and a mutant's title says nothing of its own")
        f2p = json.loads((root / "tests" / "f2p.json").read_text())
        p2p = json.loads((root / "tests" / "p2p.json").read_text())
        broken = len(f2p) / max(1, len(f2p) + len(p2p))
        if broken > self._opts["max_break_share"]:
            draft.stage.discard()
            return Skip(SkipReason.BREAKS_TOO_MUCH, f"{len(f2p)} of {len(f2p) + len(p2p)} tests fail "
                                                    f"(max_break_share {self._opts['max_break_share']})")
        signature = (tuple(sorted(f2p)), normalised_diff(gold_patch))
        with self._lock:
            if signature in self._kept.signatures:
                draft.stage.discard()
                return Skip(SkipReason.DUPLICATE_MUTANT, f"fails the same {len(f2p)} test(s) with the same diff")
            self._kept.signatures.add(signature)
            self._kept.count += 1
        meta["fail_to_pass_count"], meta["pass_to_pass_count"] = len(f2p), len(p2p)
        meta["repo_mutate"]["diff_digest"] = signature[1]
        # The schema 1.3 Dockerfiles replace the work tree with the snapshots, so they start from the revision's
        # task image, not the mutant's: every mutant of a revision then shares its image layers (the verifier's
        # compiled bytecode, the stripped tree) and a push sends one task image per revision (SWE-smith's one
        # environment per repository).
        base = self._revision.image.image_ref
        meta["reproducibility"]["image_ref"] = base
        draft.stage.write_text("task.toml", tomlkit.dumps(doc))
        # every file of the package is collected (the list names no culprit), each with its reference version
        return replace(draft, split_layout=replace(with_package_artifacts(draft.split_layout), image_ref=base))

    def close(self) -> None:
        if self._revision is not None:
            self._revision.close()


def normalised_diff(patch: str) -> str:
    """A digest of a patch's changed lines with whitespace collapsed (headers, hunk positions and context left
    out): two mutants that make the same edit share it."""
    lines = [" ".join(line.split()) for line in patch.splitlines()
             if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()[:16]


def _read_kept(out: Path) -> _Kept:
    """The repo_mutate tasks already in ``out``: their (FAIL_TO_PASS, diff digest) signatures and their count."""
    kept = _Kept(set(), 0)
    if not out.is_dir():
        return kept
    for toml in sorted(out.glob("*/task.toml")):
        try:
            meta = tomlkit.parse(toml.read_text())["metadata"]["repo2env"]
        except Exception:  # not a bundle of ours: not counted
            continue
        table = meta.get("repo_mutate")
        if meta.get("pipeline") != "repo_mutate" or table is None:
            continue
        kept.count += 1
        kept.signatures.add((tuple(sorted(table.get("fail_to_pass", []))), str(table.get("diff_digest", ""))))
    return kept

