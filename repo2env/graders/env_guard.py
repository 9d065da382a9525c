"""Guards the graders use inside a task container. Standard library only, Python 3.6+; shipped into bundles as
``tests/env_guard.py`` beside the grader, which runs as ``python3 -I -S`` (no site-packages, no ``.pth``, no
environment variables), so nothing the agent planted runs inside the grader itself.

``snapshot()``: the Python environment's files (stdlib, site-packages, the user site, the interpreter) as
``{"roots": [...], "files": {path: sha256[:16]}}``, ``__pycache__`` left out (the test run reads no cached
bytecode: ``PYTHONPYCACHEPREFIX`` points at a fresh folder). Recorded when the task is generated
(``tests/python_env.json``); ``compare`` at grading time names any file added, removed or changed, and the
grader then scores 0 without running a test.

``kill_strays()``: after the tests, every process but the grader, its ancestors and the container's main chain
(pid 1, its oldest child, that one's oldest child, ...: ``docker-init`` -> ``sh -c "sleep infinity"`` -> ``sleep``
as Harbor starts it) is killed, so nothing the agent or the tests started (say, a daemon waiting to overwrite the
reward, which ends up a younger child of pid 1) outlives them.

``python3 env_guard.py snapshot`` prints the snapshot as JSON.
"""

import hashlib
import json
import os
import signal
import sys
import sysconfig


def roots():
    """The directories of this interpreter's Python environment (existing ones, sorted, no duplicates)."""
    found = set()
    for scheme in (None, "posix_user"):
        for key in ("stdlib", "platstdlib", "purelib", "platlib"):
            try:
                path = sysconfig.get_path(key, scheme) if scheme else sysconfig.get_path(key)
            except KeyError:
                continue
            if path and os.path.isdir(path):
                found.add(os.path.realpath(path))
    # a child directory of another root is covered by it
    return sorted(r for r in found if not any(r != o and r.startswith(o + os.sep) for o in found))


def _digest(path):
    h = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:16]


# Installer bookkeeping in *.dist-info that never runs and that installers rewrite (uv's cache stamp differed
# between an image and the same image pulled back from a registry): left out of the snapshot.
BOOKKEEPING = ("RECORD", "uv_cache.json", "uv_build.json", "INSTALLER", "REQUESTED", "direct_url.json")


def snapshot():
    """``{"roots": [...], "files": {path: digest}}`` (module docstring). Symlinks are recorded by target."""
    files = {}
    for root in roots():
        for folder, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            bookkeeping = folder.endswith(".dist-info")
            for name in names:
                if bookkeeping and name in BOOKKEEPING:
                    continue
                path = os.path.join(folder, name)
                try:
                    files[path] = ("link:" + os.readlink(path)) if os.path.islink(path) else _digest(path)
                except OSError:
                    files[path] = "unreadable"
    exe = os.path.realpath(sys.executable)
    files[exe] = _digest(exe)
    return {"roots": roots(), "files": files}


def compare(recorded):
    """A one-line reason when the environment differs from ``recorded`` (a snapshot), else None."""
    now = snapshot()["files"]
    before = recorded.get("files", {})
    added = sorted(set(now) - set(before))
    removed = sorted(set(before) - set(now))
    changed = sorted(p for p in set(now) & set(before) if now[p] != before[p])
    for label, paths in (("added", added), ("changed", changed), ("removed", removed)):
        if paths:
            more = " (and %d more)" % (len(added) + len(changed) + len(removed) - 1) if \
                len(added) + len(changed) + len(removed) > 1 else ""
            return "python environment changed since the task was built: %s %s%s" % (label, paths[0], more)
    return None


def _stat(pid):
    """(ppid, start time) of ``pid`` from /proc, or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        return int(fields[1]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


IN_CONTAINER = "R2E_IN_TASK_CONTAINER"  # set to 1 by the bundle's test.sh: only then are processes killed


def kill_strays():
    """Kill every process except this one, its ancestors and the container's main chain (module docstring).
    Does nothing unless ``R2E_IN_TASK_CONTAINER=1`` (set by the bundle's test.sh): run on a host, it would take
    the host's own processes down. Returns the number of processes signalled."""
    if os.environ.get(IN_CONTAINER) != "1":
        return 0
    pids = [int(p) for p in os.listdir("/proc") if p.isdigit()]
    info = {}
    for pid in pids:
        got = _stat(pid)
        if got is not None:
            info[pid] = got
    keep = {1, os.getpid()}
    pid = os.getpid()
    while pid in info and info[pid][0] not in (0, pid):
        pid = info[pid][0]
        keep.add(pid)
    chain = 1
    while True:
        children = sorted((start, p) for p, (ppid, start) in info.items() if ppid == chain and p != chain)
        if not children:
            break
        chain = children[0][1]
        keep.add(chain)
    count = 0
    for pid in info:
        if pid not in keep:
            try:
                os.kill(pid, signal.SIGKILL)
                count += 1
            except OSError:
                pass
    return count


if __name__ == "__main__":
    if sys.argv[1:] == ["snapshot"]:
        sys.stdout.write(json.dumps(snapshot(), sort_keys=True))
        sys.exit(0)
    sys.stderr.write("usage: env_guard.py snapshot\n")
    sys.exit(2)
