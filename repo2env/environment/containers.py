"""Docker through the docker SDK: the client, and a task container driven the way Harbor drives one.

A ``TaskContainer`` starts an image with ``sleep infinity`` (``init: true``, the bundle's egress-guard hosts), takes
directories by ``put_dir`` (Harbor's upload of ``solution/`` and ``tests/``), runs commands with a time limit and
hands files back. It is always removed on exit (a warm one in the background: ``spares.settle`` at the end of a run
waits for it), so no container is left behind.
"""

import io
import os
import shlex
import signal
import tarfile
import threading
import time
from pathlib import Path

import docker
import docker.errors

from repo2env.core import timings
from repo2env.core.errors import DockerUnavailable
from repo2env.core.limits import MEMORY_MB  # a runaway test suite must not take the machine down
from repo2env.environment import spares

LABEL = "repo2rlenv"
RUN_ID = str(os.getpid())  # label value: which process started a container (a leftover names its run)
SETUP_HINT = "run `bash scripts/setup_docker.sh` (installs and starts Docker, builds the base image)"


def docker_client() -> docker.DockerClient:
    """A client for the engine in the environment (``DOCKER_HOST`` or the default socket).

    Raises ``DockerUnavailable`` with the fix when no engine answers.
    """
    try:
        client = docker.from_env(timeout=600)
        client.ping()
        return client
    except docker.errors.DockerException as exc:
        where = os.environ.get("DOCKER_HOST") or "the default socket"
        kind = type(exc.__context__ or exc).__name__
        raise DockerUnavailable(f"Docker is not reachable at {where} ({kind}); {SETUP_HINT}, or fix DOCKER_HOST") from None


def _root_owned(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def tar_directory(src: Path, arcname: str) -> bytes:
    """A tar archive (bytes) of ``src`` stored under ``arcname``; modes kept, owner root."""
    return tar_folders({arcname: src})


class Contents:
    """A value of ``tar_folders``' map: the contents of the host folder ``path`` (modes kept, owner root) put
    into a folder the image may already have, which keeps its owner and mode (the task image's ``/tests``:
    root's, 0700), as ``TaskContainer.put_dir`` leaves it; a folder the image lacks is made 0o755 by the
    extraction. The folder in the image must be empty (a copy is merged into what is there)."""

    def __init__(self, path: Path):
        self.path = path


def tar_folders(folders: dict[str, "Path | Contents | int | None"]) -> bytes:
    """A tar archive (bytes), to extract at ``/``, that makes each absolute folder of ``folders``: the copy of a
    host folder (``Path``; modes kept, owner root), a host folder's contents in a folder kept as the image has
    it (``Contents``), or an empty folder owned by root with the mode given (an ``int``; None: 0o755, as
    ``mkdir -p`` makes it). Missing parents are left to the extraction, which makes them 0o755 (Docker's
    ``put_archive``, as ``mkdir -p`` would)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for dest, src in folders.items():
            name = dest.strip("/")
            if isinstance(src, Path):
                tar.add(str(src), arcname=name, filter=_root_owned)
                continue
            if isinstance(src, Contents):
                for child in sorted(src.path.iterdir()):
                    tar.add(str(child), arcname=f"{name}/{child.name}", filter=_root_owned)
                continue
            info = _root_owned(tarfile.TarInfo(name))
            info.type, info.mode = tarfile.DIRTYPE, 0o755 if src is None else src
            tar.addfile(info)
    return buf.getvalue()


class TaskContainer:
    """A running container of ``image``; use as a context manager.

    ``extra_hosts`` maps host names to addresses (the egress guard); ``memory_mb`` caps memory (swap included),
    ``cpus`` CPU time (None: no cap);
    ``network=False`` starts it with no network at all (Harbor's ``network_mode = "no-network"``).
    ``folders`` (``tar_folders``: absolute path -> a host folder to copy, its ``Contents``, or the mode of an
    empty folder) are put in place in one engine call (an ``exec`` costs about as much, a ``put_dir`` two), before
    the container starts or, in a spare, just after; they must not exist in the image (a copy is merged into a
    folder that does), ``Contents`` aside.
    ``warm``: take a container started ahead for these settings (``spares``), and have one started for the next
    caller; for a candidate's runs, controls and probes, which follow one another on the same image. On exit a
    warm container is removed in the background (``spares.settle`` waits for it), any other (and any on the
    plain path) in line.
    Errors from the engine propagate as ``docker.errors.DockerException``.
    """

    def __init__(self, client: docker.DockerClient, image: str, *, extra_hosts: dict[str, str] | None = None,
                 workdir: str = "/workspace", memory_mb: int = MEMORY_MB, network: bool = True,
                 cpus: float | None = None, folders: dict[str, "Path | Contents | int | None"] | None = None,
                 warm: bool = False):
        self.folders = folders or {}
        self.warm = warm
        self.client = client
        self.cpus = cpus
        self.image = image
        self.extra_hosts = extra_hosts or {}
        self.workdir = workdir
        self.memory_mb = memory_mb
        self.network = network
        self.container = None
        self._init_pid: int | None = None  # ``host_root``'s, asked of the engine once

    def _create(self):
        return self.client.containers.create(
            self.image, command=["sleep", "infinity"], init=True, labels={LABEL: RUN_ID},
            extra_hosts=self.extra_hosts, working_dir=self.workdir, stop_signal="SIGKILL",
            mem_limit=f"{self.memory_mb}m", memswap_limit=f"{self.memory_mb}m",
            **({"nano_cpus": int(self.cpus * 1e9)} if self.cpus else {}),
            **({} if self.network else {"network_mode": "none"}))

    def _spare(self):
        """A created and started container of these settings, for ``spares`` (removed again if it cannot start)."""
        container = self._create()
        try:
            container.start()
        except Exception:
            spares.SPARES.discard(container)
            raise
        return container

    def __enter__(self) -> "TaskContainer":
        with timings.stage("container start"):
            if self.warm and not spares.plain():
                key = (id(self.client), self.image, tuple(sorted(self.extra_hosts.items())), self.workdir,
                       self.memory_mb, self.network, self.cpus)
                self.container = spares.SPARES.take(key, self._spare)
            try:
                if self.container is not None:
                    if self.folders:
                        self.container.put_archive("/", tar_folders(self.folders))
                    return self
                # Create, remember, then start: an interrupt between the two still leaves a handle to remove.
                self.container = self._create()
                if self.folders:  # a created container takes archives: no process to start for them
                    self.container.put_archive("/", tar_folders(self.folders))
                self.container.start()
            except BaseException:  # __exit__ is not called when __enter__ raises: remove it here
                self.__exit__(None, None, None)
                raise
        return self

    def __exit__(self, *exc) -> None:
        if self.container is None:
            return
        if self.warm and not spares.plain():
            spares.SPARES.discard(self.container)
            return
        try:
            with timings.stage("container stop"):
                self.container.remove(force=True)
        except Exception:  # the engine may be gone; the error that got us here is the one to report
            pass

    def put_dir(self, src: Path, dest: str, make: tuple[str, ...] = ()) -> None:
        """Copy the directory ``src`` to ``dest`` in the container. An existing ``dest`` folder keeps its owner
        and mode and loses its contents first, as Harbor's upload (``docker compose cp src/. main:dest``) leaves
        them: the task image's ``/tests`` is root's and 0700, so nothing the agent left running reads the grading
        inputs; a missing one is made with ``src``'s mode. ``make``: folders made first (``mkdir -p``), in the
        same engine call."""
        quoted = shlex.quote(dest.rstrip("/") or "/")
        first = f"mkdir -p {' '.join(shlex.quote(m) for m in make)}; " if make else ""
        self.exec(["sh", "-c", f"{first}if [ -d {quoted} ] && [ ! -L {quoted} ]; then find {quoted} -mindepth 1 "
                               f"-maxdepth 1 -exec rm -rf {{}} +; else rm -rf {quoted} && mkdir -p {quoted} && "
                               f"chmod {oct(src.stat().st_mode & 0o7777)[2:]} {quoted}; fi"])
        self.container.put_archive(dest, tar_directory(src, "."))

    def exec(self, cmd: list[str], *, timeout_sec: float = 1800, workdir: str | None = None,
             user: str = "root", tail: int | None = 6000, deadline=None) -> tuple[int, str, float]:
        """Run ``cmd`` as ``user``; returns ``(exit_code, output, seconds)``: the last ``tail`` characters of the
        output (None: all of it). Exit 124 means it timed out. The time limit is kept here, on the host: no
        program of the container (which the agent, as root there, may have replaced, ``timeout`` say) wraps
        ``cmd``. On time-out the command's processes are killed (``_kill_exec``). ``deadline``: a callable giving
        a ``time.monotonic()`` moment (or None) that may come sooner than ``timeout_sec`` while ``cmd`` runs
        (``tasks.runtime``'s before-run limit, set once the run after the fix has finished); read every second."""
        api = self.container.client.api
        start = time.monotonic()
        exec_id = api.exec_create(self.container.id, cmd, workdir=workdir or self.workdir, user=user)["Id"]
        got: dict = {}

        def attach():
            try:
                got["out"] = api.exec_start(exec_id, demux=False)
            except Exception as exc:  # an engine error is the caller's to see, not an empty output
                got["error"] = exc
        worker = threading.Thread(target=attach, daemon=True)
        worker.start()
        end = start + timeout_sec
        while worker.is_alive() and time.monotonic() < end:
            soon = deadline() if deadline is not None else None
            if soon is not None and time.monotonic() >= soon:
                break
            worker.join(min(1.0, max(0.0, end - time.monotonic())) if deadline is not None else timeout_sec)
        if worker.is_alive():
            self._kill_exec(api.exec_inspect(exec_id).get("Pid"))
            worker.join(30)
            code = 124
        else:
            code = api.exec_inspect(exec_id).get("ExitCode")
        if "error" in got and code != 124:
            raise got["error"]
        text = (got.get("out") or b"").decode("utf-8", errors="replace")
        return code, text if tail is None else text[-tail:], time.monotonic() - start

    def _kill_exec(self, pid: int | None) -> None:
        """Kill a timed-out command: its host process ``pid`` (as the engine reports it) and that one's descendants,
        found in the host's /proc (only when its cgroup names this container); where that is not allowed (not root)
        or the process is not on this host (a remote engine), the container."""
        try:
            if not self._runs_here(pid):
                raise PermissionError("not a process of this container here")
            children: dict[int, list[int]] = {}
            for entry in os.listdir("/proc"):
                if entry.isdigit():
                    try:
                        with open(f"/proc/{entry}/stat") as handle:
                            ppid = int(handle.read().rsplit(")", 1)[1].split()[1])
                    except (OSError, IndexError, ValueError):
                        continue
                    children.setdefault(ppid, []).append(int(entry))
            tree, todo = [], [pid]
            while todo:
                tree.append(todo.pop())
                todo.extend(children.get(tree[-1], []))
            for member in tree:
                try:
                    os.kill(member, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        except OSError:  # PermissionError, or no such process on this host (a remote engine)
            self.container.kill()

    def _runs_here(self, pid: int | None) -> bool:
        """True when ``pid`` is a process of this host whose cgroup names this container. Raises ``OSError`` when
        this host has no such process (or may not read it)."""
        with open(f"/proc/{int(pid or 0)}/cgroup") as handle:
            return self.container.id in handle.read()

    def host_root(self) -> str | None:
        """The container's root folder as this host sees it (``/proc/<its init's pid>/root``), for reading what
        the engine gives no cheap call for (a tmpfs folder's entries) without an ``exec`` (about 0.1 s); None
        when that is not open to this process (not root, a remote engine, the container stopped). The pid is
        asked once and trusted only while its cgroup names this container."""
        if self._init_pid is None:
            try:
                self._init_pid = int(self.client.api.inspect_container(self.container.id)["State"]["Pid"] or 0)
            except (docker.errors.DockerException, KeyError, TypeError, ValueError):
                self._init_pid = 0
        root = f"/proc/{self._init_pid}/root"
        try:
            if not self._init_pid or not self._runs_here(self._init_pid):
                return None
            os.listdir(root)
        except OSError:
            return None
        return root

    def get_tar(self, path: str) -> bytes | None:
        """A tar archive (bytes) of ``path`` in the container as its last component, or None when it is absent."""
        try:
            stream, _ = self.container.get_archive(path)
        except docker.errors.NotFound:
            return None
        return b"".join(stream)

    def put_tar(self, parent: str, data: bytes) -> None:
        """Extract the tar archive ``data`` into the directory ``parent`` (created when missing)."""
        self.put_tars({parent: data})

    def put_tars(self, archives: dict[str, bytes]) -> None:
        """Extract each tar archive into its directory (``{parent: data}``, in that order); the directories are
        made first, all in one command (an engine call costs about 60 ms)."""
        if archives:
            self.exec(["mkdir", "-p", *archives])
        for parent, data in archives.items():
            self.container.put_archive(parent, data)

    def read_files(self, folder: str) -> dict[str, bytes]:
        """``{name: bytes}`` of the regular files directly in ``folder`` in the container, in one engine call
        (``{}`` when it is absent)."""
        data = self.get_tar(folder)
        found = {}
        if data is None:
            return found
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            for member in tar:
                parts = member.name.split("/")
                if member.isfile() and len(parts) == 2:
                    found[parts[1]] = tar.extractfile(member).read()
        return found

    def read_file(self, path: str) -> bytes | None:
        """The bytes of file ``path`` in the container, or None when it does not exist or is not a file."""
        data = self.get_tar(path)
        if data is None:
            return None
        with tarfile.open(fileobj=io.BytesIO(data)) as tar:
            member = tar.next()
            if member is None or not member.isfile():
                return None
            return tar.extractfile(member).read()


def _process_alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def remove_leftovers(client: docker.DockerClient) -> int:
    """Remove containers left by runs on this machine whose process is gone (``kill -9``); returns how many.
    Containers of live runs are left alone. A container the engine is already removing (the killed run had asked
    for it: 409 "removal ... already in progress") or that is gone (404) counts as removed; this waits up to
    ``REMOVAL_WAIT_SEC`` for an in-progress removal to finish, so that a resumed run starts clean."""
    gone = 0
    # ignore_removed: another run on this engine may remove its own container between the listing and its
    # inspection (docker-py inspects each listed container), which is not an error of this run
    for c in client.containers.list(all=True, filters={"label": LABEL}, ignore_removed=True):
        if not _process_alive(c.labels.get(LABEL, "")):
            _remove(c)
            gone += 1
    return gone


REMOVAL_WAIT_SEC = 60.0


def _remove(container) -> None:
    try:
        container.remove(force=True)
        return
    except docker.errors.NotFound:
        return
    except docker.errors.APIError as exc:
        if exc.status_code != 409:
            raise
    deadline = time.monotonic() + REMOVAL_WAIT_SEC
    while time.monotonic() < deadline:  # the engine is removing it already: wait until it is gone
        try:
            container.reload()
        except docker.errors.NotFound:
            return
        time.sleep(0.2)
