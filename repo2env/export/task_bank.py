"""``repo2rlenv export --format task-bank | task-pack``: the verified bundles of a folder as task-bank rows.

The row (the seed documents' task bank, ``../shared/reference/task-bank.txt``): ``task_id`` (the bundle's folder
name, the task id generate gave it), ``instruction`` (``instruction.md``), ``max_steps`` (the step budget),
``verifier_id`` (one per pipeline family: ``R2E-RUNTIME`` for pr_runtime, commit_runtime and repo_mutate,
``R2E-EQUIVALENCE``, ``R2E-DIFF``), ``task_spec`` (what the verifier needs: the success criterion, the matching
policy, FAIL_TO_PASS / PASS_TO_PASS or the reward kinds, the bundle hash, constraints) and the reset package
``harbor_reset`` (its legacy name in that document): a ``seed`` (derived from the task id), the ``fixture_id``
(the agent's pinned image digest after ``push``, else the bundle hash), ``max_steps`` and the ``task_spec``
again. ``repo2env.gym.RepoTask.from_reset`` turns a reset package back into a running task.

The pack: ``tasks/<task_id>/task_definition.json`` with ``schema = "repo2env.task_definition/1"``, the bundle's
provenance (``metadata``), the ``row`` and the ``task_spec``. JSON Schemas of both: ``specs/task-bank.schema.json``
and ``specs/task-definition.schema.json``, generated from the models here (``python -m repo2env.export.task_bank``).

Only bundles labelled ``verified`` are exported (a stale or failed label is not a task anyone should train on);
rows are sorted by task id and carry no time stamps, so the same bundles always give the same bytes.
"""

import hashlib
import json
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from repo2env.bundles.find import find_tasks, has_tasks
from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.task_toml import agent_user, bundle_language, read_task_toml, task_kind
from repo2env.core.errors import InputError
from repo2env.core.files import write_atomic

VERIFIER_IDS = {"runtime": "R2E-RUNTIME", "eqv": "R2E-EQUIVALENCE", "diff": "R2E-DIFF"}
CRITERIA = {"runtime": "SC_TESTS_PASS", "eqv": "SC_ANSWER_EQUIVALENCE", "diff": "SC_DIFF_SIMILARITY"}
POLICIES = {"runtime": "every FAIL_TO_PASS and PASS_TO_PASS test passes (binary)",
            "eqv": "the submitted function agrees with the reference on every hidden case",
            "diff": "weighted similarity of the submitted diff to the reference (reward in [0, 1])"}
DEFAULT_MAX_STEPS = 100
PACK_SCHEMA = "repo2env.task_definition/1"


class Constraints(BaseModel):
    """What the agent may not do, and its limits: ``network`` (``none``: no network at all, schema 1.3/1.4;
    ``guarded``: the code forge and package registries unreachable, layout 1.0), ``package_installs`` (always
    false: the grader runs the environment as built, whatever the agent installs), time limits in seconds."""

    model_config = ConfigDict(extra="forbid")
    network: Literal["none", "guarded"]
    package_installs: bool = False
    agent_timeout_sec: float
    verifier_timeout_sec: float
    workspace: str
    user: str


class TaskSpec(BaseModel):
    """The structured task the verifier scores (module docstring)."""

    model_config = ConfigDict(extra="forbid")
    task_id: str
    goal: str
    success_criteria_id: Literal["SC_TESTS_PASS", "SC_ANSWER_EQUIVALENCE", "SC_DIFF_SIMILARITY"]
    verifier_id: Literal["R2E-RUNTIME", "R2E-EQUIVALENCE", "R2E-DIFF"]
    matching_policy: str
    constraints: Constraints
    fail_to_pass: list[str] | None = Field(default=None, description="Runtime tasks: tests that must start passing")
    pass_to_pass: list[str] | None = Field(default=None, description="Runtime tasks: tests that must keep passing")
    reward_kinds: list[str]
    bundle_hash: str = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    pipeline: str
    repository: str
    base_commit: str | None
    language: str
    schema_version: Literal["1.0", "1.3", "1.4"]


class ResetPackage(BaseModel):
    """What resets an environment to this task: ``seed``, ``fixture_id`` (image digest or bundle hash),
    ``max_steps`` and the ``task_spec``."""

    model_config = ConfigDict(extra="forbid")
    seed: int = Field(ge=0, lt=2**31)
    fixture_id: str
    max_steps: int = Field(ge=1)
    task_spec: TaskSpec


class BankRow(BaseModel):
    """One task-bank row (module docstring)."""

    model_config = ConfigDict(extra="forbid")
    task_id: str
    instruction: str
    max_steps: int = Field(ge=1)
    verifier_id: Literal["R2E-RUNTIME", "R2E-EQUIVALENCE", "R2E-DIFF"]
    task_spec: TaskSpec
    harbor_reset: ResetPackage


class TaskDefinition(BaseModel):
    """``tasks/<task_id>/task_definition.json`` of a task pack (module docstring)."""

    model_config = ConfigDict(extra="forbid")
    schema_: Literal["repo2env.task_definition/1"] = Field(PACK_SCHEMA, alias="schema")
    metadata: dict
    row: BankRow
    task_spec: TaskSpec


def seed_for(task_id: str) -> int:
    """A task's reset seed: the first 31 bits of sha256(task id), the same on every machine and run."""
    return int.from_bytes(hashlib.sha256(task_id.encode()).digest()[:4], "big") >> 1


def _schema_version(config: dict) -> str:
    return "1.0" if config.get("version") == "1.0" else str(config.get("schema_version"))


def bank_row(bundle: Path, max_steps: int = DEFAULT_MAX_STEPS) -> BankRow:
    """The task-bank row of one of our bundles. Raises ``InputError`` for a bundle that is not ours (no
    ``[metadata.repo2env]`` pipeline this knows) or has no readable instruction."""
    config = read_task_toml(bundle)
    r2e = config.get("metadata", {}).get("repo2env", {})
    kind = task_kind(config)
    if kind is None:
        raise InputError(f"{bundle}: not a repo2rlenv bundle (no known [metadata.repo2env] pipeline)")
    instruction = (bundle / "instruction.md").read_text(encoding="utf-8")
    table = r2e.get(r2e["pipeline"]) or {}
    schema = _schema_version(config)
    agent = config.get("agent") or {}
    spec = TaskSpec(
        task_id=bundle.name, goal=instruction, success_criteria_id=CRITERIA[kind], verifier_id=VERIFIER_IDS[kind],
        matching_policy=POLICIES[kind],
        constraints=Constraints(
            network="guarded" if schema == "1.0" else "none", agent_timeout_sec=float(agent.get("timeout_sec", 0)),
            verifier_timeout_sec=float((config.get("verifier") or {}).get("timeout_sec", 0)),
            workspace="/workspace", user=agent_user(config)),
        fail_to_pass=list(table["fail_to_pass"]) if kind == "runtime" else None,
        pass_to_pass=list(table["pass_to_pass"]) if kind == "runtime" else None,
        reward_kinds=list(r2e.get("reward_kinds") or []), bundle_hash=bundle_hash(bundle),
        pipeline=r2e["pipeline"], repository=str(r2e.get("repo", "")),
        base_commit=table.get("base_commit") or table.get("revision"), language=bundle_language(bundle),
        schema_version=schema)
    fixture = (config.get("environment") or {}).get("docker_image") or spec.bundle_hash
    reset = ResetPackage(seed=seed_for(bundle.name), fixture_id=fixture, max_steps=max_steps, task_spec=spec)
    return BankRow(task_id=bundle.name, instruction=instruction, max_steps=max_steps, verifier_id=spec.verifier_id,
                   task_spec=spec, harbor_reset=reset)


def exportable(root: Path) -> tuple[list[Path], dict[str, str]]:
    """The bundles below ``root`` labelled ``verified`` on their present bytes (the label's
    ``subject_bundle_hash`` is the bundle's hash now; sorted by task id), and the others with why they were left
    out: a bundle edited after its controls ran is not the task they proved. Raises ``InputError`` when
    ``root`` does not exist or holds no task at all."""
    if not root.is_dir():
        raise InputError(f"{root}: no such folder; pass the folder of tasks that generate or build wrote")
    if not has_tasks(root):
        raise InputError(f"{root}: no Harbor task below it; pass the folder of tasks that generate or build wrote")
    tasks = find_tasks(root)
    kept, left = [], {}
    for task in sorted(tasks, key=lambda t: t.name):
        evaluation = read_task_toml(task).get("metadata", {}).get("repo2env", {}).get("evaluation") or {}
        status = evaluation.get("status")
        if status != "verified":
            left[task.name] = f"evaluation {status or 'missing'}"
        elif evaluation.get("subject_bundle_hash") != bundle_hash(task):
            left[task.name] = ("changed since it was verified (its hash is not the label's); measure it again: "
                               f"repo2rlenv restamp {task} --run")
        else:
            kept.append(task)
    return kept, left


def check_out(tasks_root: Path, out: Path, *, folder: bool) -> None:
    """Refuse an ``--out`` that would write into the tasks (at or below ``tasks_root``, or holding it), or
    whose kind is wrong (a folder for a file, a file for a folder). Raises ``InputError``."""
    root, target = tasks_root.resolve(), out.resolve()
    if target == root or root in target.parents or target in root.parents:
        raise InputError(f"--out {out}: inside (or around) the tasks folder {tasks_root}; write the export elsewhere")
    if folder and target.exists() and not target.is_dir():
        raise InputError(f"--out {out}: a file; this format writes a folder, give a folder's path")
    if not folder and target.is_dir():
        raise InputError(f"--out {out}: a folder; task-bank writes one JSONL file, give a file's path (bank.jsonl)")


def row_json(row: BankRow) -> str:
    """One JSONL line (sorted keys, no trailing newline)."""
    return json.dumps(row.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)


def write_bank(tasks: list[Path], out: Path, max_steps: int = DEFAULT_MAX_STEPS) -> int:
    """Write one row per bundle to the JSONL file ``out`` (replaced whole, by rename). Returns the row count."""
    lines = [row_json(bank_row(t, max_steps)) + "\n" for t in tasks]
    write_atomic(out, "".join(lines).encode())
    return len(lines)


def write_pack(tasks: list[Path], out: Path, max_steps: int = DEFAULT_MAX_STEPS) -> int:
    """Write ``out/tasks/<task_id>/task_definition.json`` per bundle (each replaced by rename; definitions of
    tasks no longer exported are removed). Returns the count."""
    wanted = set()
    for task in tasks:
        row = bank_row(task, max_steps)
        r2e = read_task_toml(task)["metadata"]["repo2env"]
        metadata = {"pipeline": r2e["pipeline"], "pipeline_version": r2e.get("pipeline_version"),
                    "repository": r2e.get("repo"), "bundle_hash": row.task_spec.bundle_hash,
                    "evaluation_status": "verified", "language": row.task_spec.language}
        definition = TaskDefinition(metadata=metadata, row=row, task_spec=row.task_spec)
        body = json.dumps(definition.model_dump(mode="json", by_alias=True), indent=1, sort_keys=True) + "\n"
        write_atomic(out / "tasks" / row.task_id / "task_definition.json", body.encode())
        wanted.add(row.task_id)
    for old in (out / "tasks").glob("*/task_definition.json") if (out / "tasks").is_dir() else []:
        if old.parent.name not in wanted:
            old.unlink()
            old.parent.rmdir() if not any(old.parent.iterdir()) else None
    return len(tasks)


def is_export(path: Path) -> bool:
    """True for a task bank (a ``.jsonl`` file) or a task pack (a folder with ``tasks/*/task_definition.json``
    and no task bundle: a folder of bundles is checked as bundles, whatever else it holds)."""
    if path.suffix == ".jsonl" and not path.is_dir():
        return True
    return path.is_dir() and any((path / "tasks").glob("*/task_definition.json")) and not has_tasks(path)


def check_export(path: Path) -> tuple[int, list[str]]:
    """Check a task bank or task pack against its JSON Schema (``schemas()``, the same as ``specs/``), each
    row's ``task_id`` against its spec's and its reset package's, and task ids for duplicates. Returns (rows or
    definitions checked, problems as ``"<where>: <what>"``)."""
    from jsonschema import Draft202012Validator  # noqa: PLC0415 - only for validate

    problems: list[str] = []
    if not path.exists():
        raise InputError(f"{path}: no such file; pass a task bank (.jsonl) or a task pack folder export wrote")
    if path.is_file():
        validator, items = Draft202012Validator(schemas()["task-bank.schema.json"]), []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                items.append((f"{path}:{n}", line))
        if not items:
            problems.append(f"{path}: no rows")
    else:
        validator = Draft202012Validator(schemas()["task-definition.schema.json"])
        items = []
        for folder in sorted(p for p in (path / "tasks").iterdir() if p.is_dir()):
            definition = folder / "task_definition.json"
            if not definition.is_file():
                problems.append(f"{folder}: no task_definition.json")
                continue
            items.append((str(definition), definition.read_text(encoding="utf-8")))
            try:
                named = json.loads(items[-1][1]).get("row", {}).get("task_id")
            except (ValueError, AttributeError):
                continue
            if named != folder.name:
                problems.append(f"{definition}: its task_id {named!r} is not its folder's name")
    seen: set[str] = set()
    for where, text in items:
        try:
            item = json.loads(text)
        except ValueError as exc:
            problems.append(f"{where}: not JSON ({exc})")
            continue
        for error in sorted(validator.iter_errors(item), key=lambda e: list(e.path))[:3]:
            at = "/".join(str(p) for p in error.path) or "(top)"
            problems.append(f"{where}: {at}: {error.message[:200]}")
        row = item.get("row", item) if isinstance(item, dict) else {}
        task_id = row.get("task_id") if isinstance(row, dict) else None
        ids = {task_id, (row.get("task_spec") or {}).get("task_id"),
               ((row.get("harbor_reset") or {}).get("task_spec") or {}).get("task_id")} if task_id else set()
        if len(ids) > 1:
            problems.append(f"{where}: task_id differs between the row, its task_spec and its reset package")
        if task_id in seen:
            problems.append(f"{where}: task_id {task_id} appears twice")
        seen.add(task_id)
    return len(items), problems


def schemas() -> dict[str, dict]:
    """``{"task-bank.schema.json": ..., "task-definition.schema.json": ...}`` (draft 2020-12, from pydantic)."""
    out = {}
    for name, model in (("task-bank.schema.json", BankRow), ("task-definition.schema.json", TaskDefinition)):
        schema = model.model_json_schema(by_alias=True)
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["$id"] = f"https://repo2rlenv.invalid/specs/{name}"
        out[name] = schema
    return out


def write_schemas(specs: Path) -> None:
    """Write ``schemas()`` into the folder ``specs``."""
    for name, schema in schemas().items():
        (specs / name).write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n")


if __name__ == "__main__":
    write_schemas(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "specs")
