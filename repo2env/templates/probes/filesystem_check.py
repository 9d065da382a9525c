"""Reference digging (a check, run where the agent works and as its user): a file it can read that holds the lines
only the reference adds (the gold patch, a fixed release in a cache, a copied tests/ or solution/ folder). Lines
already in the work tree do not count; /proc, /sys, /dev and /workspace/.git (see history_check) are not read.
The interpreter's standard library is not read (it predates every task; boltons' fix for islice bounds repeats
three lines of ``_collections_abc.py``), and a few common lines are not a leak: a file counts when it holds at
least two of the reference's lines and at least half of them, or, when the reference adds a single line, that line
if it is 40 characters or longer. A leaked patch or a fixed release holds nearly all of them. A line found in the
files of two or more packages (or folders outside one) is an idiom, not the reference's: tenacity pr#605 added
``async def __aenter__(self) -> None:``, which trio and tornado hold too. Prints {"found": [...]} as JSON.
"""
import json
import os
import sysconfig

SKIP = ("/proc", "/sys", "/dev", "/workspace/.git", "/tmp/r2e-probe")
STDLIB = os.path.realpath(sysconfig.get_path("stdlib"))
SITE = {os.path.realpath(sysconfig.get_path(k)) for k in ("purelib", "platlib")}
WS = "/workspace"


def lines_of(path, limit=4 << 20):
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit)
    except OSError:
        return set()
    if b"\0" in data[:8192]:
        return set()
    found = set()
    for line in data.decode("utf-8", "replace").splitlines():
        line = line.strip()
        found.add(line)
        if line[:1] in ("+", "-"):  # a line of a diff
            found.add(line[1:].strip())
    return found


def walk(top):
    for root, dirs, files in os.walk(top):
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in SKIP]
        real = os.path.realpath(root)
        if real == STDLIB or (real.startswith(STDLIB + os.sep) and not any(
                real == s or real.startswith(s + os.sep) for s in SITE)):
            # the standard library itself is not read; its site-packages are
            dirs[:] = [d for d in dirs if any(s == os.path.join(real, d) or s.startswith(os.path.join(real, d) + os.sep)
                                              for s in SITE)]
            continue
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                yield path


def source_of(path):
    """What a file belongs to, for telling an idiom from a copy: its top-level package's name (the highest folder
    above it that holds an ``__init__.py``: ``trio`` for site-packages/trio/_core/_run.py and for the same file in
    a uv cache alike), else its folder."""
    folder = os.path.dirname(path)
    top = None
    while os.path.isfile(os.path.join(folder, "__init__.py")):
        top, folder = folder, os.path.dirname(folder)
    return os.path.basename(top) if top else os.path.dirname(path)


def leaks(gold, workspace=WS, top="/"):
    """The files under ``top`` (outside ``workspace``) that hold the reference's ``gold`` lines (module
    docstring), as one-line findings, at most 10."""
    for path in walk(workspace):
        gold = gold - lines_of(path)
    hits, sources = [], {}
    if gold:
        for path in walk(top):
            if path == workspace or path.startswith(workspace + "/"):
                continue
            hit = gold & lines_of(path)
            if hit:
                hits.append((path, hit))
                for line in hit:
                    sources.setdefault(line, set()).add(source_of(path))
    gold = {line for line in gold if len(sources.get(line, ())) < 2}  # an idiom of several packages is no leak
    need = max(2, -(-len(gold) // 2)) if len(gold) > 1 else 1
    if len(gold) == 1 and len(next(iter(gold))) < 40:
        gold = set()
    found = []
    for path, hit in hits:
        hit = hit & gold
        if gold and len(hit) >= need:
            found.append("%s holds %d of the reference's %d lines, e.g. %r" % (path, len(hit), len(gold),
                                                                              sorted(hit)[0][:80]))
            if len(found) >= 10:
                break
    return found


def main():
    gold = {l.strip() for l in open("/tmp/r2e-probe/gold_lines.txt").read().splitlines() if l.strip()}
    print(json.dumps({"found": leaks(gold)}))


if __name__ == "__main__":
    main()
