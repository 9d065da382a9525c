"""Controls for a task whose verifier runs in its own container (Harbor ``[verifier] environment_mode =
"separate"``, schema 1.3/1.4), run the way Harbor runs such a trial, through the docker SDK:

1. the agent's container from ``environment/``, or ``[environment].docker_image`` when set (no network when
   ``[environment]``/``[agent]`` say ``no-network``); for the oracle, ``solution/`` is uploaded to
   ``/solution`` and ``solve.sh`` runs as ``[agent].user``; for the nop nothing runs;
2. every task-level ``artifacts`` entry of the main service is collected from it (an absent path is skipped, as
   Harbor records a failed collection and goes on);
3. the verifier's container: ``[verifier.environment].docker_image`` when set, else built from ``tests/`` when
   it has a Dockerfile (the image then owns ``/tests``), otherwise a fresh copy of the agent's environment
   with ``tests/`` uploaded to ``/tests``; the artifacts are put back at their source paths, ``/tests/test.sh``
   runs as ``[verifier].user`` and ``/logs/verifier/reward.txt`` is read.

Harbor's resolution of the mode (``harbor.models.task.verifier_mode``): an explicit ``environment_mode`` wins,
else ``separate`` when ``[verifier.environment]`` is set, else ``shared``.

The artifacts are all that crosses from the agent's container to the verifier's, so a trial whose artifacts are
byte-for-byte (tar stream: content, mode, owner, time) those of an earlier trial graded by the same verifier
(``GRADED``: the verifier image's id, the bundle's ``tests/`` and verifier settings) gets that trial's reward
without a second verifier run: a probe that changes no artifact cannot reach the grader, and its reward is the one
the grader gave that very input (the nop's, measured by the controls of the same process).
"""

import copy
import hashlib
import io
import json
import tarfile
import threading
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import docker
import docker.errors

from repo2env.bundles.task_toml import agent_user
from repo2env.core.limits import MEMORY_MB
from repo2env.core.records import ControlResult
from repo2env.environment.containers import TaskContainer
from repo2env.environment.images import run_image


AGENT_LOGS = ("/logs/agent", "/logs/artifacts")  # the folders Harbor mounts in the agent's container


def split_archive(whole: bytes, sources: list[str]) -> dict[str, bytes]:
    """From the tar stream of a folder (its entries ``<folder>/...``, as the engine archives a path), the
    stream each of ``sources`` (paths directly in that folder) would have had alone: its entry, and everything
    below it when it is a folder, renamed ``<name>...``; a source with no entry is left out (absent). A folder
    that is a symlink gives no entries below it: its artifacts are absent (stricter than following it)."""
    out = {}
    with tarfile.open(fileobj=io.BytesIO(whole)) as tar:
        members = tar.getmembers()
        top = members[0].name.split("/", 1)[0] if members else ""
        for source in sources:
            name = PurePosixPath(source).name
            own = [m for m in members if m.name == f"{top}/{name}" or m.name.startswith(f"{top}/{name}/")]
            if not own:
                continue
            buffer = io.BytesIO()
            names = {m.name for m in own}
            with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as part:
                for original in own:
                    member = copy.copy(original)  # the archive's own entries keep their names for link lookups
                    data = tar.extractfile(original) if member.isfile() or member.islnk() else None
                    member.name = member.name[len(top) + 1:]
                    if member.islnk() and member.linkname in names:
                        member.linkname = member.linkname[len(top) + 1:]
                        data = None
                    elif member.islnk():  # its other name lies outside this source: archived alone, the engine
                        # stores the file itself (a link across sources could reach through another one's symlink)
                        target = tar.getmember(member.linkname)
                        member.type, member.linkname, member.size = tarfile.REGTYPE, "", target.size
                    part.addfile(member, data)
            out[source] = buffer.getvalue()
    return out


def join_archives(streams: list[bytes]) -> bytes:
    """One tar stream holding every entry of ``streams`` in order: extracted into one folder it leaves what
    extracting each stream there in turn leaves (a later entry replaces an earlier one of the same name), in one
    engine call instead of one per stream."""
    if len(streams) == 1:
        return streams[0]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as joined:
        for stream in streams:
            with tarfile.open(fileobj=io.BytesIO(stream)) as tar:
                for member in tar.getmembers():
                    joined.addfile(member, tar.extractfile(member) if member.isfile() else None)
    return buffer.getvalue()


class Verdicts:
    """The reward files a verifier wrote, by ``(verifier key, artifacts digest)``; at most ``size`` kept (the
    oldest go first). ``get_or_grade`` runs ``grade()`` once per key even when called side by side: a second
    caller waits for the first and takes its result. A run that wrote no reward (None) is not remembered."""

    def __init__(self, size: int = 4096):
        self.size = size
        self._done: dict[tuple[str, str], bytes] = {}
        self._running: dict[tuple[str, str], threading.Lock] = {}
        self._lock = threading.Lock()

    def get_or_grade(self, key: tuple[str, str], grade) -> bytes | None:
        """The remembered reward bytes for ``key``, else ``grade()``'s (remembered when not None). Exceptions
        from ``grade`` propagate and nothing is remembered."""
        with self._lock:
            if key in self._done:
                return self._done[key]
            gate = self._running.setdefault(key, threading.Lock())
        with gate:
            with self._lock:
                if key in self._done:
                    return self._done[key]
            raw = grade()
            with self._lock:
                self._running.pop(key, None)
                if raw is not None:
                    self._done[key] = raw
                    while len(self._done) > self.size:
                        self._done.pop(next(iter(self._done)))
            return raw


GRADED = Verdicts()


def artifacts_digest(artifacts: dict[str, bytes]) -> str:
    """sha256 hex over the collected artifacts (source path and tar stream of each, in path order)."""
    return hashlib.sha256(b"".join(hashlib.sha256(k.encode() + b"\0" + v).digest()
                                   for k, v in sorted(artifacts.items()))).hexdigest()


def verifier_mode(config: dict) -> str:
    """``"separate"`` or ``"shared"`` for a parsed task.toml, by Harbor's rule (module docstring)."""
    verifier = config.get("verifier") or {}
    mode = verifier.get("environment_mode")
    if mode in ("shared", "separate"):
        return mode
    return "separate" if verifier.get("environment") is not None else "shared"


def artifact_sources(config: dict) -> list[str]:
    """Absolute container paths of the task-level artifacts collected from the agent's (main) container."""
    paths = []
    for entry in config.get("artifacts") or []:
        if isinstance(entry, str):
            paths.append(entry)
        elif isinstance(entry, dict) and entry.get("service") in (None, "main") and entry.get("source"):
            paths.append(entry["source"])
    return [p for p in paths if p.startswith("/")]


def _offline(table: dict | None) -> bool:
    return (table or {}).get("network_mode") == "no-network"


def _user(table: dict | None) -> str:
    user = (table or {}).get("user")
    return "root" if user is None else str(user)


def _memory(table: dict | None) -> int:
    return int((table or {}).get("memory_mb") or MEMORY_MB)


def _elapsed(start: datetime) -> float:
    return round((datetime.now(UTC) - start).total_seconds(), 3)


class SeparateTrial:
    """Builds a bundle's two images once; ``run(name, expected)`` runs one control (module docstring). ``warm``:
    its containers are started ahead and removed behind (``TaskContainer``'s; controls and probes, one after
    another), else made and removed in line (the gym: its container is gone when ``close`` returns)."""

    def __init__(self, client: docker.DockerClient, bundle: Path, config: dict, task_id: str, warm: bool = False):
        self.warm = warm
        self.client = client
        self.bundle = bundle
        self.config = config
        self.agent_image = run_image(client, bundle, config, task_id)
        self.baked_tests = (bundle / "tests" / "Dockerfile").is_file() \
            or bool(((config.get("verifier") or {}).get("environment") or {}).get("docker_image"))
        self.verifier_image = (run_image(client, bundle, config, task_id, verifier=True)
                               if self.baked_tests else self.agent_image)
        # the containers start from this id: a run rebuilding the tag meanwhile cannot change what the key names
        self.verifier_image_id = client.images.get(self.verifier_image).id
        self.verifier_key = self._verifier_key()

    def _verifier_key(self) -> str:
        """What besides the artifacts decides a verdict: the verifier image (by id), ``tests/`` (uploaded when not
        baked into it) and the verifier's settings (user, network, memory)."""
        digest = hashlib.sha256(self.verifier_image_id.encode())
        digest.update(json.dumps(self.config.get("verifier") or {}, sort_keys=True, default=str).encode())
        digest.update(json.dumps(self.config.get("environment") or {}, sort_keys=True, default=str).encode())
        if not self.baked_tests:
            for path in sorted(p for p in (self.bundle / "tests").rglob("*") if p.is_file()):
                digest.update(path.relative_to(self.bundle).as_posix().encode() + b"\0" + path.read_bytes())
        return digest.hexdigest()

    def agent_container(self, folders: dict | None = None) -> TaskContainer:
        """The agent's container (not started: use it as a context manager), as Harbor starts it: the agent's
        image, no network when the task says so, its memory cap, Harbor's log folders (``AGENT_LOGS``), and
        ``folders`` (``TaskContainer``'s: path -> a host folder to copy in) put in place before it starts; warm
        when the trial is."""
        env, agent = self.config.get("environment") or {}, self.config.get("agent") or {}
        offline = _offline(env) or _offline(agent)
        return TaskContainer(self.client, self.agent_image, network=not offline, memory_mb=_memory(env),
                             folders={**dict.fromkeys(AGENT_LOGS), **(folders or {})}, warm=self.warm)

    def collect(self, box: TaskContainer) -> dict[str, bytes]:
        """The task-level artifacts of the agent's container ``box``: source path -> tar stream of that path as
        its last component, as the engine archives one path (absent ones skipped, as Harbor does). Artifacts
        that share a folder come from one archive of the folder (``split_archive``): one engine call, not one
        per file (a repo_mutate task collects every file of its package)."""
        groups: dict[str, list[str]] = {}
        for source in artifact_sources(self.config):
            groups.setdefault(str(PurePosixPath(source).parent), []).append(source)
        collected = {}
        for parent, sources in groups.items():
            if len(sources) == 1:
                data = box.get_tar(sources[0])
                collected.update({sources[0]: data} if data is not None else {})
                continue
            whole = box.get_tar(parent)
            if whole is not None:
                collected.update(split_archive(whole, sources))
        return {s: collected[s] for s in artifact_sources(self.config) if s in collected}

    def _agent_phase(self, name: str, agent_timeout_sec: float, act=None, folders: dict | None = None
                     ) -> dict[str, bytes]:
        oracle = act is None and name == "oracle"
        with self.agent_container({**(folders or {}), **({"/solution": self.bundle / "solution"} if oracle else {})}
                                  ) as box:
            if act is not None:
                act(box)
            elif oracle:
                box.exec(["bash", "/solution/solve.sh"], timeout_sec=agent_timeout_sec, user=self.agent_user)
            return self.collect(box)

    def grade(self, artifacts: dict[str, bytes], timeout_sec: float) -> bytes | None:
        """Run the verifier's container on ``artifacts`` (``collect``); the bytes of the reward file it wrote,
        or None. Raises ``docker.errors.DockerException``."""
        return self._verifier_phase(artifacts, timeout_sec)

    def _verifier_phase(self, artifacts: dict[str, bytes], timeout_sec: float) -> bytes | None:
        verifier = self.config.get("verifier") or {}
        table = verifier.get("environment") or self.config.get("environment") or {}
        offline = _offline(table) or _offline(verifier)
        # the reward folder open to the verifier's user (Harbor mounts it so), and tests/ when not baked in
        folders = {"/logs/verifier": 0o777, **({} if self.baked_tests else {"/tests": self.bundle / "tests"})}
        with TaskContainer(self.client, self.verifier_image_id, network=not offline,
                           memory_mb=_memory(table), folders=folders, warm=self.warm) as box:
            by_parent: dict[str, list[bytes]] = {}
            for source, data in artifacts.items():
                by_parent.setdefault(str(PurePosixPath(source).parent), []).append(data)
            box.put_tars({parent: join_archives(streams) for parent, streams in by_parent.items()})
            box.exec(["bash", "/tests/test.sh"], timeout_sec=timeout_sec, user=_user(verifier))
            return box.read_file("/logs/verifier/reward.txt")

    @property
    def agent_user(self) -> str:
        """``[agent].user`` (root when unset)."""
        return agent_user(self.config)

    def run(self, name: str, expected: float, *, verifier_timeout_sec: float,
            agent_timeout_sec: float = 600, act=None, folders: dict | None = None) -> ControlResult:
        """One control; engine errors are reported in ``ControlResult.error``, never raised. ``act(box)`` replaces
        what the agent does (a probe), in a container given ``folders`` (``agent_container``)."""
        start = datetime.now(UTC)
        try:
            artifacts = self._agent_phase(name, agent_timeout_sec, act, folders)
            raw = GRADED.get_or_grade((self.verifier_key, artifacts_digest(artifacts)),
                                      lambda: self._verifier_phase(artifacts, verifier_timeout_sec))
        except docker.errors.DockerException as exc:
            return ControlResult(name=name, expected=expected, reward=None, error=str(exc)[:300],
                                 seconds=_elapsed(start))
        try:
            return ControlResult(name=name, expected=expected, reward=float((raw or b"").decode().strip()),
                                 seconds=_elapsed(start))
        except ValueError:
            return ControlResult(name=name, expected=expected, reward=None, seconds=_elapsed(start),
                                 error="no numeric reward in /logs/verifier/reward.txt")
