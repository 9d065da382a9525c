"""Guards the graders use inside a task container. Standard library only, Python 3.6+; shipped into bundles as
``tests/env_guard.py`` beside the grader, which runs as ``python3 -I -S`` (no site-packages, no ``.pth``, no
environment variables), so nothing the agent planted runs inside the grader itself.

``snapshot()``: the Python environment's files (stdlib, site-packages, the user site, the interpreter, and
``system_paths()``: the loader's preload list, configuration and cache, the interpreter's shared libraries, the
shells) as
``{"roots": [...], "files": {path: digest}, "executable": path}``, ``__pycache__`` left out (the test run reads no
cached bytecode: ``PYTHONPYCACHEPREFIX`` points at a fresh folder). It cannot hang: only regular files are opened
(a FIFO, socket or device is recorded by its kind), and of a file larger than ``FULL_DIGEST_BYTES`` only the
first ``FULL_DIGEST_BYTES`` are read (its size is part of the digest), so a huge sparse file costs no more than a
small one. Recorded when the task is generated
(``tests/python_env.json``); ``compare`` at grading time names any file added, removed or changed, and the
grader then scores 0 without running a test. A cache root (``cache_roots``: a bytecode tree the test run may
read instead of compiling afresh) is recorded whole too (``__pycache__`` included; a file too large to digest
whole spoils it), but a difference under it is no reason to score 0:
``check`` says which cache roots are intact, and the grader reads only those (an honest agent that deleted
every ``.pyc`` on the machine has removed a cache, not solved or broken anything).

``kill_strays()``: before the grader reads anything (the bootstrap in test.sh runs this very code) and after the
tests, every process but the grader, its ancestors and the container's main chain (pid 1, its oldest child, that one's oldest child, ...: ``docker-init`` -> ``sh -c "sleep infinity"`` -> ``sleep``
as Harbor starts it) is killed, so nothing the agent or the tests started (say, a daemon waiting to overwrite the
reward, which ends up a younger child of pid 1) outlives them.

``python3 env_guard.py snapshot [FOLDER ...] [--skip=NAME ...] [--cache=FOLDER ...]`` prints the snapshot
as JSON (the folders recorded too, folders called NAME left out, the cache folders recorded as cache roots);
``python3 env_guard.py kill-strays`` kills the strays.
"""

import hashlib
import json
import os
import signal
import stat
import subprocess
import sys
import sysconfig

FULL_DIGEST_BYTES = 32 << 20  # files up to 32 MiB are read whole; of larger ones, this many bytes and the size


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


def _digest(path, size):
    """sha256[:16] of a regular file's bytes (at most ``FULL_DIGEST_BYTES`` of them, plus the size when larger).
    Opened with O_NONBLOCK|O_NOFOLLOW so that a file swapped for a FIFO or a symlink meanwhile cannot block."""
    h = hashlib.sha256()
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "special"
        left = FULL_DIGEST_BYTES
        while left > 0:
            block = os.read(fd, min(1 << 20, left))
            if not block:
                break
            h.update(block)
            left -= len(block)
    finally:
        os.close(fd)
    if size > FULL_DIGEST_BYTES:
        h.update(b"size:%d" % size)
    return h.hexdigest()[:16]


def _entry(path):
    """What the snapshot records of one directory entry, without following it or opening anything irregular."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return "link:" + os.readlink(path)
    if stat.S_ISREG(info.st_mode):
        return _digest(path, info.st_size)
    return "special:%o" % stat.S_IFMT(info.st_mode)


# Installer bookkeeping in *.dist-info that never runs and that installers rewrite (uv's cache stamp differed
# between an image and the same image pulled back from a registry): left out of the snapshot.
BOOKKEEPING = ("RECORD", "uv_cache.json", "uv_build.json", "INSTALLER", "REQUESTED", "direct_url.json")


# Outside the Python environment, what runs before or under the grader: the dynamic loader's preload list (absent
# in a clean image; a library named there loads into every process), its configuration and cache (which say where
# a library is found), and the shells test.sh and Harbor start. Also recorded: every configuration file in
# /etc/ld.so.conf.d and the shared libraries a fresh interpreter maps (libpython, libc, libm, the loader).
SYSTEM_FILES = ("/etc/ld.so.preload", "/etc/ld.so.cache", "/etc/ld.so.conf", "/bin/bash", "/bin/sh")


def system_paths():
    """``SYSTEM_FILES``, the files of ``/etc/ld.so.conf.d`` and the shared libraries a fresh ``python -I -S``
    maps (read from its ``/proc/self/maps``; none where there is no /proc), in that order."""
    paths = list(SYSTEM_FILES)
    try:
        paths += sorted(os.path.join("/etc/ld.so.conf.d", name) for name in os.listdir("/etc/ld.so.conf.d"))
    except OSError:
        pass
    try:
        maps = subprocess.run([sys.executable, "-I", "-S", "-c", "import sys; sys.stdout.write(open("
                               "'/proc/self/maps').read())"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              timeout=30).stdout.decode("utf-8", "replace")
    except (OSError, subprocess.SubprocessError):
        maps = ""
    libraries = set()
    for line in maps.splitlines():
        fields = line.split()
        if len(fields) >= 6 and fields[5].startswith("/") and ".so" in os.path.basename(fields[5]):
            libraries.add(fields[5])
    return paths + sorted(libraries)


def _walk(root, files, skipped=(), whole=False):
    """Record every file and symlink under ``root`` into ``files`` (symlinks by target, never followed; folders
    named in ``skipped`` and installer ``BOOKKEEPING`` left out). ``whole``: a cache root, walked with nothing
    left out, and a regular file too large to digest whole recorded as ``oversize`` (a cache holding one is
    never intact: its tail could change unseen)."""
    for folder, dirs, names in os.walk(root):
        links = [d for d in dirs if os.path.islink(os.path.join(folder, d))]  # recorded, never followed
        dirs[:] = sorted(d for d in dirs if (whole or d not in skipped) and d not in links)
        bookkeeping = not whole and folder.endswith(".dist-info")
        for name in names + links:
            if bookkeeping and name in BOOKKEEPING:
                continue
            path = os.path.join(folder, name)
            try:
                info = os.lstat(path) if whole else None
                if info and stat.S_ISREG(info.st_mode) and info.st_size > FULL_DIGEST_BYTES:
                    files[path] = OVERSIZE
                else:
                    files[path] = _entry(path)
            except OSError:
                files[path] = "unreadable"


OVERSIZE = "oversize"  # what a cache root's file larger than FULL_DIGEST_BYTES is recorded as


def _existing(folders):
    """The real paths of those of ``folders`` that exist, sorted."""
    return sorted(os.path.realpath(f) for f in folders if os.path.isdir(f))


def _files(extra, skip_dirs, caches):
    """(the environment's files, the cache roots' files): the walks of ``snapshot``."""
    files, cached = {}, {}
    for root in roots() + extra:
        _walk(root, files, set(skip_dirs) | {"__pycache__"})
    for root in caches:
        _walk(root, cached, whole=True)
    exe = os.path.realpath(sys.executable)
    for path in [exe] + system_paths():
        try:
            files[os.path.realpath(path)] = _entry(os.path.realpath(path))
        except OSError:
            files[os.path.realpath(path)] = "absent"
    return files, cached


def snapshot(extra_roots=(), skip_dirs=(), cache_roots=()):
    """``{"roots": [...], "files": {path: digest}}`` (module docstring). Symlinks are recorded by target.
    ``extra_roots``: more folders to record whole (a toolchain language's compiler, module cache and build cache:
    what its test runs read besides the workspace), kept in the snapshot as ``extra_roots`` for ``compare``;
    ``skip_dirs``: folder names left out wherever they are (a runner's cache, which the grader removes before it
    runs), kept as ``skip_dirs``; ``cache_roots``: folders recorded whole, ``__pycache__`` and ``skip_dirs``
    included, whose differences ``compare`` forgives and ``check`` reports (existing ones, by real path), kept
    as ``cache_roots``."""
    extra, caches = _existing(extra_roots), _existing(cache_roots)
    files, cached = _files(extra, skip_dirs, caches)
    files.update(cached)
    found = {"roots": roots(), "files": files, "executable": os.path.realpath(sys.executable)}
    if extra:
        found["extra_roots"] = extra
    if skip_dirs:
        found["skip_dirs"] = sorted(skip_dirs)
    if caches:
        found["cache_roots"] = caches
    return found


def check(recorded):
    """``(reason, intact)``: a one-line reason when the environment differs from ``recorded`` (a snapshot)
    outside its cache roots, else None; and the cache roots of ``recorded`` under which nothing was added,
    removed or changed and no file is ``OVERSIZE`` (sorted real paths). One walk of the environment. Only what
    the walk of a cache root found is forgiven: a file of the environment (a Python root's, a system path's
    real path) lying inside a cache root is a reason, so that a folder linked into a cache is never excused."""
    caches = list(recorded.get("cache_roots") or ())
    main, cached = _files(_existing(recorded.get("extra_roots") or ()), recorded.get("skip_dirs") or (),
                          [c for c in caches if os.path.isdir(c)])

    def cache_of(path):
        return next((c for c in caches if path == c or path.startswith(c + os.sep)), None)

    what = "environment" if recorded.get("extra_roots") else "python environment"
    inside = sorted(p for p in main if cache_of(p))
    if inside:
        return "%s changed since the task was built: %s lies inside the cache %s" % (
            what, inside[0], cache_of(inside[0])), []
    now = dict(main, **cached)
    before = recorded.get("files", {})
    differing = (set(now) ^ set(before)) | {p for p in set(now) & set(before) if now[p] != before[p]}
    spoilt = {cache_of(p) for p in differing} | {cache_of(p) for p, entry in cached.items() if entry == OVERSIZE}
    differing = {p for p in differing if cache_of(p) is None}
    intact = sorted(c for c in caches if c not in spoilt and os.path.realpath(c) == c)
    added = sorted(p for p in differing if p not in before)
    removed = sorted(p for p in differing if p not in now)
    changed = sorted(p for p in differing if p in before and p in now)
    for label, paths in (("added", added), ("changed", changed), ("removed", removed)):
        if paths:
            more = " (and %d more)" % (len(differing) - 1) if len(differing) > 1 else ""
            return "%s changed since the task was built: %s %s%s" % (what, label, paths[0], more), intact
    return None, intact


def compare(recorded):
    """A one-line reason when the environment differs from ``recorded`` (a snapshot) outside its cache roots,
    else None (``check``)."""
    return check(recorded)[0]


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
    the host's own processes down. First every process but pid 1 and this one is stopped at once
    (``kill(-1, SIGSTOP)``: the kernel signals them all under one lock and a fork in progress is undone, so a
    process that keeps forking, its pid changing, cannot slip between a listing and the kill); then the strays
    are killed and the kept ones continued. Returns the number of processes killed."""
    if os.environ.get(IN_CONTAINER) != "1":
        return 0
    try:
        os.kill(-1, signal.SIGSTOP)
    except OSError:  # nothing else to signal
        pass
    info, keep = {}, {1, os.getpid()}
    try:
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                got = _stat(int(entry))
                if got is not None:
                    info[int(entry)] = got
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
    finally:
        for pid in keep:
            if pid != os.getpid():
                try:
                    os.kill(pid, signal.SIGCONT)
                except OSError:
                    pass


if __name__ == "__main__":
    if sys.argv[1:2] == ["snapshot"]:
        args = sys.argv[2:]
        skip = [a[len("--skip="):] for a in args if a.startswith("--skip=")]
        cache = [a[len("--cache="):] for a in args if a.startswith("--cache=")]
        sys.stdout.write(json.dumps(snapshot([a for a in args if not a.startswith("--")], skip, cache),
                                    sort_keys=True))
        sys.exit(0)
    if sys.argv[1:] == ["kill-strays"]:
        kill_strays()
        sys.exit(0)
    sys.stderr.write("usage: env_guard.py snapshot [EXTRA_ROOT ...] [--skip=DIRNAME ...] [--cache=DIR ...] "
                     "| kill-strays\n")
    sys.exit(2)
