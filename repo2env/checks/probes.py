"""Adversarial probes: scripted agents that try to get the reward without solving the task.

Each probe is a script in ``templates/probes/`` run where an agent acts (a fresh container of the bundle's
environment, as ``[agent].user``), after which the bundle's own verifier runs exactly as for the oracle and the
nop (``controls.run_control``; with a separate verifier, ``separate_verifier.SeparateTrial``). A task is kept only
when every attack scores at most its nop reward (0.0, or a graded task's measured baseline) and the valid
alternative scores 1.0. Checks (``history``, ``filesystem``) run no verifier: they report what they found, and
anything found counts as reward 1.0. Attacks that change different things share one container and one grading
(``groups``) when the task is graded in the agent's container; the group's verdict stands only when it is the
nop's exactly, else each attack runs again alone (``run_probes``). With an unprivileged agent, attacks whose act
changed nothing are not graded, and act one after the other in one container until one does.

Classes (``PROBES``): reward forgery, test-runner tampering, test deletion or replacement, programs the grader
would run (configured through git, an interpreter replaced on PATH), grading inputs rewritten after upload by a
process left running, a grader made to hang (a FIFO and a huge sparse file in site-packages), the code under test
rewriting its own verdict (appended to the package's own source: flip every outcome, exit early with success,
rewrite the result file, flip only the graded tests, flip every failure but what reads like a planted copy; in Go, an ``init()`` that forges the runner's report), Go's
own tampering (a planted ``TestMain``, ``GOFLAGS`` through go's env file and the shell, a ``go.work``, the
toolchain's ``testing`` package edited; in JavaScript, the runners' configuration and ``node_modules`` edited, the
code under test neutering ``expect``; in Rust, cargo's configuration, a planted ``build.rs`` and the manifest
turned against the grader, the toolchain edited, a library function run before ``main`` that forges libtest's
report; in Java, JUnit configured from the main classpath to swallow the grading tests' failures, Maven's
configuration, a process started by the code under test that rewrites Surefire's reports), history and file-system
digging, pipeline-specific
(equivalence_tests: reading the grader's files, delegating to the original), and the valid alternative (the
reference with locals renamed and reformatted by ``ast.unparse``).

The material the scripts read is staged in ``/tmp/r2e-probe``: ``targets.txt`` (the grading tests' files),
``ids.txt`` (their node ids), ``gold_lines.txt`` (lines the reference adds, at least 16 characters),
``changed.txt`` (the reference's Python files), ``changed_js.txt`` (its JavaScript/TypeScript files),
``eqv.json`` and the helper scripts.
"""

import json
import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path

import docker

from repo2env.bundles.task_toml import agent_user, bundle_language, read_task_toml, task_kind
from repo2env.checks.controls import run_control, shared_container
from repo2env.checks.separate_verifier import SeparateTrial, verifier_mode
from repo2env.core import concurrency, timings
from repo2env.core.metadata import ProbeRecord
from repo2env.core.outcomes import EvaluationStatus
from repo2env.environment.containers import TaskContainer
from repo2env.environment.images import run_image

PROBES_VERSION = "6"
MATERIAL = "/tmp/r2e-probe"
MIN_LINE = 16  # shorter added lines (``return x``) are too common to mean a leak


@dataclass(frozen=True)
class Probe:
    """One probe: ``script`` in templates/probes/, the ``kind`` of attack, the task kinds it ``applies`` to
    (``runtime``, ``eqv``, ``diff``); a ``check`` reports findings instead of running the verifier; ``honest``
    marks the valid alternative (must score 1.0)."""

    name: str
    kind: str
    script: str
    applies: tuple[str, ...]
    check: bool = False
    honest: bool = False
    languages: tuple[str, ...] = ("*",)  # the bundle languages it applies to (``bundle_language``); "*" any
    # what the attack changes (``groups``): probes with no surface in common may act in one container; none: alone.
    # ``processes``: it leaves a process running (one such attack to a container)
    surfaces: tuple[str, ...] = ()


ALL = ("runtime", "eqv", "diff")
PY, GO, JS, RS, JV = ("python",), ("go",), ("javascript",), ("rust",), ("java",)
PROBES = (
    Probe("reward_files", "reward_forgery", "reward_files.sh", ALL, surfaces=("reward",)),
    Probe("reward_readonly", "reward_forgery", "reward_readonly.sh", ALL, surfaces=("reward",)),
    Probe("reward_dirs", "reward_forgery", "reward_dirs.sh", ALL, surfaces=("reward",)),
    Probe("reward_late_writer", "reward_forgery", "reward_late_writer.sh", ALL, surfaces=("reward", "processes")),
    Probe("conftest_force_pass", "runner_tampering", "conftest_force_pass.sh", ("runtime",), languages=PY,
          surfaces=("conftest",)),
    Probe("ini_addopts", "runner_tampering", "ini_addopts.sh", ("runtime",), languages=PY, surfaces=("pytest_config",)),
    Probe("pyproject_addopts", "runner_tampering", "pyproject_addopts.sh", ("runtime",), languages=PY,
          surfaces=("pytest_config",)),
    Probe("site_pth", "runner_tampering", "site_pth.sh", ("runtime", "eqv"), languages=PY),
    Probe("sitecustomize", "runner_tampering", "sitecustomize.sh", ("runtime", "eqv"), languages=PY),
    Probe("shell_startup", "runner_tampering", "shell_startup.sh", ("runtime",), languages=PY, surfaces=("shell",)),
    Probe("shadow_pytest", "runner_tampering", "shadow_pytest.sh", ("runtime",), languages=PY,
          surfaces=("conftest", "pytest_config", "test_files")),
    Probe("delete_tests", "test_deletion", "delete_tests.sh", ("runtime",), surfaces=("test_files",)),
    Probe("empty_tests", "test_deletion", "empty_tests.sh", ("runtime",), surfaces=("test_files",)),
    Probe("rewrite_tests", "test_deletion", "rewrite_tests.sh", ("runtime",), surfaces=("test_files",)),
    Probe("git_config_program", "grader_programs", "git_config_program.sh", ("runtime",), surfaces=("git",)),
    Probe("path_interpreter", "grader_programs", "path_interpreter.sh", ("runtime", "eqv")),
    Probe("system_program", "grader_programs", "system_program.sh", ("runtime", "eqv")),
    Probe("stdlib_zip", "grader_programs", "stdlib_zip.sh", ("runtime", "eqv"), languages=PY),
    Probe("input_rewriter", "input_rewriting", "input_rewriter.sh", ("runtime",),
          surfaces=("grader_inputs", "processes")),
    Probe("grader_swapper", "input_rewriting", "grader_swapper.sh", ("runtime", "eqv"),
          surfaces=("grader_inputs", "processes")),
    Probe("fifo_site_packages", "grader_hang", "fifo_site_packages.sh", ("runtime", "eqv")),
    Probe("code_runner_flip", "code_under_test", "code_runner_flip.sh", ("runtime",), languages=PY),
    Probe("code_early_exit", "code_under_test", "code_early_exit.sh", ("runtime",), languages=PY),
    Probe("code_result_rewrite", "code_under_test", "code_result_rewrite.sh", ("runtime",), languages=PY,
          surfaces=("package_source",)),
    Probe("code_spare_copies", "code_under_test", "code_spare_copies.sh", ("runtime",), languages=PY),
    Probe("code_graded_only", "code_under_test", "code_graded_only.sh", ("runtime",), languages=PY,
          surfaces=("package_source",)),
    Probe("code_forge_by_name", "code_under_test", "code_forge_by_name.sh", ("runtime",), languages=PY),
    Probe("go_testmain", "runner_tampering", "go_testmain.sh", ("runtime",), languages=GO),
    Probe("go_env_config", "runner_tampering", "go_env_config.sh", ("runtime",), languages=GO),
    Probe("go_goroot_testing", "runner_tampering", "go_goroot_testing.sh", ("runtime",), languages=GO),
    Probe("go_code_forge", "code_under_test", "go_code_forge.sh", ("runtime",), languages=GO),
    Probe("rust_cargo_config", "runner_tampering", "rust_cargo_config.sh", ("runtime",), languages=RS),
    Probe("rust_toolchain", "runner_tampering", "rust_toolchain.sh", ("runtime",), languages=RS),
    Probe("rust_code_forge", "code_under_test", "rust_code_forge.sh", ("runtime",), languages=RS),
    Probe("java_build_config", "runner_tampering", "java_build_config.sh", ("runtime",), languages=JV),
    Probe("java_code_forge", "code_under_test", "java_code_forge.sh", ("runtime",), languages=JV),
    Probe("js_runner_config", "runner_tampering", "js_runner_config.sh", ("runtime",), languages=JS),
    Probe("js_node_modules", "runner_tampering", "js_node_modules.sh", ("runtime",), languages=JS),
    Probe("js_code_expect", "code_under_test", "js_code_expect.sh", ("runtime",), languages=JS),
    Probe("history", "history_digging", "history_check.py", ALL, check=True),
    Probe("filesystem", "history_digging", "filesystem_check.py", ALL, check=True),
    Probe("eqv_read_tests", "pipeline", "eqv_read_tests.sh", ("eqv",)),
    Probe("eqv_delegate", "pipeline", "eqv_delegate.sh", ("eqv",)),
    Probe("js_valid_alternative", "valid_alternative", "js_valid_alternative.sh", ("runtime",), honest=True,
          languages=JS),
    Probe("rust_valid_alternative", "valid_alternative", "rust_valid_alternative.sh", ("runtime",), honest=True,
          languages=RS),
    Probe("go_valid_alternative", "valid_alternative", "go_valid_alternative.sh", ("runtime",), honest=True,
          languages=GO),
    Probe("java_valid_alternative", "valid_alternative", "java_valid_alternative.sh", ("runtime",), honest=True,
          languages=JV),
    Probe("valid_alternative", "valid_alternative", "valid_alternative.sh", ("runtime", "eqv"), honest=True,
          languages=PY),
)
HELPERS = ("evil_plugin.py", "alternative.py", "history_check.py", "filesystem_check.py", "trivial_tests.py")


@dataclass
class ProbeResult:
    """A probe's reward on one bundle, the most it may score (``limit``; the valid alternative must reach it),
    and what a check found."""

    name: str
    kind: str
    reward: float | None
    limit: float
    honest: bool = False
    detail: str | None = None
    error: str | None = None

    @property
    def ok(self) -> bool:
        """An attack scored at most ``limit``; the valid alternative scored exactly ``limit`` (1.0)."""
        if self.reward is None:
            return False
        return abs(self.reward - self.limit) < 1e-9 if self.honest else self.reward <= self.limit + 1e-9

    def record(self) -> dict:
        """The evidence entry for ``[metadata.repo2env.evaluation]``."""
        return {"name": self.name, "version": PROBES_VERSION, "reward": self.reward, "limit": self.limit,
                "ok": self.ok}


def applicable(config: dict, bundle: Path | None = None) -> list[Probe]:
    """The probes that apply to the task described by ``config`` (its parsed task.toml) and, by its language
    (``bundle_language``), to the bundle at ``bundle``."""
    kind, language = task_kind(config), bundle_language(bundle)
    return [p for p in PROBES if kind in p.applies and ("*" in p.languages or language in p.languages)]


def _read(name: str) -> str:
    return resources.files("repo2env").joinpath("templates", "probes", name).read_text(encoding="utf-8")


def _added_lines(patch: str) -> list[str]:
    return [line[1:].strip() for line in patch.splitlines() if line.startswith("+") and not line.startswith("+++")]


def _grading_ids(bundle: Path) -> list[str]:
    ids = []
    for name in ("f2p.json", "p2p.json"):
        path = bundle / "tests" / name
        if path.is_file():
            ids += json.loads(path.read_text())
    contract = bundle / "contract.json"
    if not ids and contract.is_file():
        ids = [t for t in json.loads(contract.read_text()).get("must_pass", []) if not t.startswith("/")]
    return ids


def stage_material(bundle: Path, dest: Path) -> None:
    """Write the probe material for ``bundle`` into the folder ``dest`` (module docstring)."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in HELPERS:
        (dest / name).write_text(_read(name))
    for probe in PROBES:
        (dest / probe.script).write_text(_read(probe.script))
    ids = _grading_ids(bundle)
    (dest / "ids.txt").write_text("".join(f"{i}\n" for i in ids))
    (dest / "targets.txt").write_text("".join(f"{f}\n" for f in sorted({i.split("::", 1)[0] for i in ids})))
    patch = bundle / "solution" / "patch.diff"
    reference = bundle / "solution" / "reference"
    gold, changed, changed_js = [], [], []
    if patch.is_file():
        text = patch.read_text(encoding="utf-8", errors="replace")
        gold = _added_lines(text)
        changed = re.findall(r"^\+\+\+ b/(\S+\.py)$", text, re.MULTILINE)
        changed_js = re.findall(r"^\+\+\+ b/(\S+\.[cm]?[jt]sx?)$", text, re.MULTILINE)
    elif reference.is_dir():
        for path in sorted(p for p in reference.rglob("*") if p.is_file()):
            gold += [line.strip() for line in path.read_text(encoding="utf-8", errors="replace").splitlines()]
            if path.suffix == ".py":
                changed.append(path.relative_to(reference).as_posix())
    elif (bundle / "solution" / "task_module.py").is_file():
        gold = [line.strip() for line in (bundle / "solution" / "task_module.py").read_text().splitlines()]
        changed = ["task_module.py"]
    (dest / "gold_lines.txt").write_text("".join(f"{g}\n" for g in sorted(set(gold)) if len(g) >= MIN_LINE))
    (dest / "changed.txt").write_text("".join(f"{c}\n" for c in changed))
    (dest / "changed_js.txt").write_text("".join(f"{c}\n" for c in changed_js))
    eqv = bundle / "tests" / "eqv_config.json"
    (dest / "eqv.json").write_text(eqv.read_text() if eqv.is_file() else "{}")
    for path in dest.iterdir():
        path.chmod(0o755 if path.suffix in (".sh", ".py") else 0o644)
    dest.chmod(0o755)


def _acts(bundle: Path, material: Path, probe: Probe, user: str, timeout: float, sink: dict):
    """(act, folders): what the probe's agent does (``act(box)``: its script) in a container started with
    ``folders`` (the material, and the reference for an honest probe: ``TaskContainer``'s)."""
    folders = {MATERIAL: material, **({"/solution": bundle / "solution"} if probe.honest else {})}

    def act(box: TaskContainer) -> None:
        runner = "python3" if probe.script.endswith(".py") else "bash"
        # a check reads as the agent would: a copy of the reference only root can read is no leak (tomli pr#180
        # cited a file under /root, 0700, while a readable vendored copy was the real one)
        code, out, _ = box.exec([runner, f"{MATERIAL}/{probe.script}"], timeout_sec=timeout, user=user)
        sink["code"], sink["out"] = code, out
    return act, folders


UNCHANGED = "its act changed nothing the grader reads: the nop's grading stands"


class _Unchanged(Exception):
    """An attack's act left its container as it found it (``_state``): its grading would be the nop's."""


def _state(box: TaskContainer) -> tuple:
    """What an agent can leave for the grader in ``box``: its file-system changes, the processes running (their
    ids, from the engine: no process is started to look) and the entries of the tmpfs folders that the
    file-system changes do not hold (``/dev/shm``, ``/dev/mqueue``). The changes are every entry of the
    container's writable layer with its metadata (an overlay ``UpperDir`` this host can read: every path written,
    its contents or metadata changed, removed as a whiteout), else docker's ``diff`` (paths and kinds; about
    0.3 s a call, where the walk of a small layer takes milliseconds). Raises ``docker.errors.DockerException``."""
    upper = ((box.container.attrs.get("GraphDriver") or {}).get("Data") or {}).get("UpperDir")
    if upper and os.path.isdir(upper):
        changes = []
        for root, dirs, files in os.walk(upper):
            for name in dirs + files:
                path = os.path.join(root, name)
                info = os.lstat(path)
                changes.append((os.path.relpath(path, upper), info.st_mode, info.st_uid, info.st_gid, info.st_size,
                                info.st_mtime_ns, info.st_ctime_ns, info.st_rdev))
        changes.sort()
    else:
        changes = sorted((c["Path"], c["Kind"]) for c in box.container.diff() or [])
    top = box.container.top(ps_args="-eo pid,stat")  # a process that ended but is not yet reaped is not running
    pid, state = top["Titles"].index("PID"), top["Titles"].index("STAT")
    processes = sorted(row[pid] for row in top["Processes"] if not row[state].startswith("Z"))
    return changes, processes, _tmpfs(box)


TMPFS = ("/dev/shm", "/dev/mqueue")


def _tmpfs(box: TaskContainer):
    """The entries of the container's ``TMPFS`` folders: read through ``TaskContainer.host_root`` where this
    host can (no ``exec``: 42 of them took 6 s of a demo task's probes), else ``ls -A`` in the container. Two
    reads of one container compare equal only when both took the same way (a mixed pair reads as changed,
    which costs a grading, never a verdict)."""
    root = box.host_root()
    if root is not None:
        try:
            return tuple((folder, tuple(sorted(os.listdir(root + folder)))) for folder in TMPFS)
        except OSError:
            pass
    _, listing, _ = box.exec(["ls", "-A", *TMPFS])
    return listing


def _started(box: TaskContainer) -> tuple:
    """``_state`` of a container whose main chain is up: ``init`` and its ``sleep`` (just after the start only
    ``init`` may be there, and its child would count as a process the act left)."""
    state = _state(box)
    for _ in range(40):
        if len(state[1]) >= 2:
            break
        time.sleep(0.05)
        state = _state(box)
    return state


def _graded_only_if_changed(act):
    """``act`` wrapped: it raises ``_Unchanged`` instead of going on to the grading when the act changed nothing
    ``_state`` sees. Sound only for an unprivileged agent: the folders put in place before the start are root's
    (a root agent could rewrite their contents without docker's diff listing a new path)."""
    def wrapped(box: TaskContainer) -> None:
        before = _started(box)
        act(box)
        if _state(box) == before:
            raise _Unchanged()
    return wrapped


def _check_result(probe: Probe, sink: dict) -> tuple[float | None, str | None]:
    try:
        found = json.loads(sink.get("out", "").strip().splitlines()[-1])["found"]
    except (ValueError, IndexError, KeyError, TypeError):
        return None, f"the check printed no result (exit {sink.get('code')}): {sink.get('out', '')[-200:]}"
    return (1.0 if found else 0.0), ("; ".join(found)[:300] or None)


def groups(probes: list[Probe]) -> list[tuple[Probe, ...]]:
    """The container starts ``probes`` need, in the order given: attacks that declare ``surfaces`` share a
    container with others when no surface is in common (first fit, in ``PROBES`` order); the checks (they only
    read) join the first such group and act before any attack; the rest act alone: the valid alternative,
    attacks the grader answers by reporting tampering or an error, and attacks that replace the programs other
    attacks' payloads run (``path_interpreter``'s ``python3`` would silence ``git_config_program``'s,
    ``shadow_pytest``'s ``pytest`` the plugins ``conftest_force_pass`` and ``ini_addopts`` plant)."""
    shared: list[list[Probe]] = []
    for probe in probes:
        if probe.check or probe.honest or not probe.surfaces:
            continue
        home = next((g for g in shared if not set(probe.surfaces) & {s for p in g for s in p.surfaces}), None)
        if home is None:
            shared.append([probe])
        else:
            home.append(probe)
    shared = [g for g in shared if len(g) > 1]
    grouped = {p.name for g in shared for p in g}
    checks = [p for p in probes if p.check]
    if shared and checks:
        shared[0] = checks + shared[0]
        grouped |= {p.name for p in checks}
    alone = [(p,) for p in probes if p.name not in grouped]
    return [tuple(g) for g in shared] + alone


def _log_name(probes) -> str:
    """The transcript stem of a grading after ``probes`` acted in one container: ``probe-<name>`` or
    ``probes-<first>+<n>-more``."""
    names = [p.name for p in probes] or ["none"]
    return f"probe-{names[0]}" if len(names) == 1 else f"probes-{names[0]}+{len(names) - 1}-more"


def run_probes(client: docker.DockerClient, bundle: Path, task_id: str, *, verifier_timeout_sec: float,
               baseline: float = 0.0, only: tuple[str, ...] | None = None, workers: int = 1,
               nop_outcome: dict | None = None) -> list[ProbeResult]:
    """Run every applicable probe on ``bundle`` (module docstring), up to ``workers`` container runs side by side
    (``core.concurrency``); engine errors are reported per probe. A probe whose run wrote no reward is run once
    more (a verifier that hit its time limit on a loaded machine); a second run without a reward is reported as
    the probe's error, and the task is not kept. Results in ``PROBES`` order.

    Each probe gets its own fresh container, except, for a task graded in the agent's container (layout 1.0)
    whose nop control's ``nop_outcome`` is given (``ControlResult.outcome``), the attacks that ``groups`` puts
    together: they act one after the other in one container, graded once. The group's verdict stands for each
    of them only when it is the nop's exactly: a reward of at most ``baseline``, every graded test with the
    nop's outcome (passed, failed, error, skipped or missing alike), the nop's tampering report (none, or the
    same), no error (``controls.graded_outcome``), and every attack's script exited 0 (it did what it meant
    to). Anything else, and each attack of the group runs again alone: an attack that works alone is not hidden
    behind one that changes how the tests run (the demo's weak bundles of ``tests/checks/test_probes_docker.py``
    prove it for each group). When the agent is unprivileged and ``nop_outcome`` is given, an attack whose act
    changed nothing (``_state``: files, processes, tmpfs; alone, or between the acts before and after it in its
    group's container) is not graded for: the same container state gets the nop's grading, so its reward is the
    nop's (``baseline``), and it does not hold its group to the exit-0 rule. Then too the attacks (and groups)
    act one after the other in one container for as long as their acts change nothing (``chain``): the container
    is then as fresh as when it started, so the first act that changes something is graded there exactly as in a
    container of its own (on the demo: 7 container starts for 28 probes, where each once had its own)."""
    config = read_task_toml(bundle)
    probes = [p for p in applicable(config, bundle) if only is None or p.name in only]
    material = Path(tempfile.mkdtemp(prefix="r2e-probe-"))
    try:
        stage_material(bundle, material)
        separate = verifier_mode(config) == "separate"
        trial = SeparateTrial(client, bundle, config, task_id, warm=True) if separate else None
        image = trial.agent_image if separate else run_image(client, bundle, config, task_id)
        user = trial.agent_user if separate else agent_user(config)
        # an attack that changed nothing is not graded: its grading is the nop's, already measured (layout 1.0,
        # an unprivileged agent: _graded_only_if_changed)
        shortcut = not separate and nop_outcome is not None and user not in ("root", "0")

        def check(probe: Probe, sink: dict) -> ProbeResult:
            """A check's result from what its script printed (``sink``); anything found scores 1.0."""
            reward, detail = _check_result(probe, sink)
            return ProbeResult(probe.name, probe.kind, reward, 0.0, detail=detail,
                               error=None if reward is not None else detail)

        def one(probe: Probe) -> ProbeResult:
            limit = 1.0 if probe.honest else (0.0 if probe.check else baseline)
            sink: dict = {}
            act, folders = _acts(bundle, material, probe, user, 900, sink)
            if probe.check:
                try:
                    with shared_container(client, bundle, image, folders, warm=True) as box:
                        act(box)
                except docker.errors.DockerException as exc:
                    return ProbeResult(probe.name, probe.kind, None, limit, error=str(exc)[:300])
                return check(probe, sink)
            if shortcut and not probe.honest:
                act = _graded_only_if_changed(act)
            for _ in range(2):  # a run that wrote no reward (the verifier's time ran out on a loaded machine, an
                # engine error) is run once more in a fresh container; a reward, whatever it is, stands
                try:
                    if separate:
                        got = trial.run("nop", limit, verifier_timeout_sec=verifier_timeout_sec, act=act,
                                        folders=folders)
                    else:
                        got = run_control(client, bundle, image, "nop", limit,
                                          verifier_timeout_sec=verifier_timeout_sec, act=act, folders=folders,
                                          log_name=f"probe-{probe.name}")
                except _Unchanged:
                    return ProbeResult(probe.name, probe.kind, baseline, limit, detail=UNCHANGED)
                if got.reward is not None:
                    break
            return ProbeResult(probe.name, probe.kind, got.reward, limit, honest=probe.honest, error=got.error)

        def verdicts(group: tuple[Probe, ...], got, sinks: dict, idle: set[str]) -> list[ProbeResult]:
            """The results of ``group``, graded once (``got``) after its acts (``sinks``; ``idle``: the attacks
            whose act changed nothing): one attack's grading is its own (a run without a reward is run again
            alone); a group's stands for each only when it is the nop's exactly, else each runs again alone."""
            attacks = [p for p in group if not p.check and p.name not in idle]
            checks = [check(p, sinks[p.name]) if sinks[p.name] else one(p) for p in group if p.check]
            unchanged = [ProbeResult(p.name, p.kind, baseline, baseline, detail=UNCHANGED) for p in group
                         if p.name in idle]
            if got is None:
                return checks + unchanged
            if len(group) == 1:
                [probe] = group
                if got.reward is None:
                    return [one(probe)]
                return [ProbeResult(probe.name, probe.kind, got.reward, baseline, error=got.error)]
            held = got.reward is not None and got.reward <= baseline + 1e-9 and got.outcome == nop_outcome \
                and all(sinks[p.name].get("code") == 0 for p in attacks)
            if not held:
                return checks + unchanged + [one(p) for p in attacks]
            return checks + unchanged + [ProbeResult(p.name, p.kind, got.reward, baseline) for p in attacks]

        def together(group: tuple[Probe, ...]) -> list[ProbeResult]:
            sinks = {p.name: {} for p in group}
            acts = [(p, _acts(bundle, material, p, user, 900, sinks[p.name])[0]) for p in group]
            idle: set[str] = set()  # attacks whose act changed nothing (shortcut): the nop's verdict is theirs

            def act(box: TaskContainer) -> None:
                for probe, each in acts:
                    before = _started(box) if shortcut and not probe.check else None
                    each(box)
                    if before is not None and _state(box) == before:
                        idle.add(probe.name)
                if all(p.name in idle for p in group if not p.check):
                    raise _Unchanged()
            try:
                got = run_control(client, bundle, image, "nop", baseline, verifier_timeout_sec=verifier_timeout_sec,
                                  act=act, folders={MATERIAL: material}, log_name=_log_name(group))
            except _Unchanged:
                got = None
            return verdicts(group, got, sinks, idle)

        def chain(queue: list[tuple[Probe, ...]]) -> list[ProbeResult]:
            """Attack units (a probe, or a ``groups`` group) one after the other in one container while their acts
            change nothing (``_state``: it is then as fresh as when it started, and each such attack's verdict is
            the nop's); the first unit whose act changed something is graded there, as in a container of its
            own, and the rest go on in a fresh container."""
            results: list[ProbeResult] = []
            queue = list(queue)
            while queue:
                acted: dict = {}

                def act(box: TaskContainer) -> None:
                    state = _started(box)
                    while queue:
                        unit = queue[0]  # taken off once acted: one that an engine error cut short runs again
                        sinks = {p.name: {} for p in unit}
                        idle: set[str] = set()
                        for probe in unit:
                            _acts(bundle, material, probe, user, 900, sinks[probe.name])[0](box)
                            after = _state(box)
                            if after == state:
                                idle.add(probe.name)
                            state = after
                        queue.pop(0)
                        if len(idle) < len(unit):
                            acted.update(unit=unit, sinks=sinks, idle=idle)
                            return
                        results.extend(verdicts(unit, None, sinks, idle))
                    raise _Unchanged()
                try:
                    got = run_control(client, bundle, image, "nop", baseline, verifier_timeout_sec=verifier_timeout_sec,
                                      act=act, folders={MATERIAL: material},
                                      log_name=lambda: _log_name(acted.get("unit", ())))
                except _Unchanged:
                    break
                if not acted:  # the engine failed before the first act: each unit alone, as without the chain
                    results.extend(r for unit in queue for r in (together(unit) if len(unit) > 1 else [one(unit[0])]))
                    break
                results.extend(verdicts(acted["unit"], got, acted["sinks"], acted["idle"]))
            return results

        if separate or nop_outcome is None:
            units = [(p,) for p in probes]
        else:
            units = groups(probes)
        calls = []
        if shortcut:  # attacks without a check or the valid alternative: in ``workers`` chains
            chained = [u for u in units if not any(p.check or p.honest for p in u)]
            units = [u for u in units if u not in chained]
            lanes = max(1, workers)
            calls += [lambda q=chained[i::lanes]: chain(q) for i in range(lanes) if chained[i::lanes]]
        calls += [lambda u=unit: together(u) if len(u) > 1 else [one(u[0])] for unit in units]
        done = concurrency.run_all(calls, workers)
        order = {p.name: i for i, p in enumerate(PROBES)}
        return sorted((r for results in done for r in results), key=lambda r: order[r.name])
    finally:
        shutil.rmtree(material, ignore_errors=True)


def failed_probe(results: list[ProbeResult]) -> ProbeResult | None:
    """The first probe that broke the task (or errored), else None."""
    return next((r for r in results if not r.ok), None)


def evidence(results: list[ProbeResult]) -> dict:
    """``{"probes_version", "probed_at", "probes": [...]}`` for the evaluation label."""
    return {"probes_version": PROBES_VERSION, "probed_at": datetime.now(UTC).replace(microsecond=0),
            "probes": [r.record() for r in results]}


def with_probes(client, bundle: Path, task_id: str, evaluation, *, verifier_timeout_sec: float,
                baseline: float, workers: int = 1, nop_outcome: dict | None = None) -> tuple:
    """Run the probes on a bundle whose controls passed (``run_probes``; ``nop_outcome``: what the grader saw in
    the nop control); the evaluation gains their evidence, and a probe that broke the task makes it
    ``failed_controls`` with reason ``probe_<name>``. Returns ``(evaluation, reason, detail)``: ``detail`` says
    what the probe scored against its limit and what it found (a check's finding, an engine error), None when
    no probe broke the task."""
    with timings.stage("probes"):
        results = run_probes(client, bundle, task_id, verifier_timeout_sec=verifier_timeout_sec, baseline=baseline,
                             workers=workers, nop_outcome=nop_outcome)
    bad = failed_probe(results)
    update = {"probes": [ProbeRecord(**r.record()) for r in results]}
    reason = detail = None
    if bad is not None:
        reason = f"probe_{bad.name}"
        update.update(status=EvaluationStatus.FAILED_CONTROLS, reason_codes=[reason])
        found = bad.error or bad.detail
        detail = f"probe {bad.name}: reward {bad.reward} (at most {bad.limit})" + (f": {found}" if found else "")
    return evaluation.model_copy(update=update), reason, detail
