"""History digging (a check, run where the agent works): what git in /workspace can show beyond the base commit.

Found: a commit not among HEAD's ancestors (any ref, reflog, stash, FETCH_HEAD/ORIG_HEAD, or unreachable in the
object store), and an object not reachable from HEAD that holds a line only the reference adds (lines already in
the work tree do not count). Prints {"found": [...]} as JSON.
"""
import json
import os
import subprocess

WS = "/workspace"
# the work tree is the agent's user's (learner): root's git reads it only when told it is safe (git >= 2.35.2)
GIT = ["git", "-c", "safe.directory=*", "-C", WS]


def git(*args):
    return subprocess.run(GIT + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout


def present_lines():
    seen = set()
    for root, dirs, files in os.walk(WS):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in files:
            try:
                with open(os.path.join(root, name), "rb") as handle:
                    data = handle.read(4 << 20)
            except OSError:
                continue
            seen.update(line.strip() for line in data.decode("utf-8", "replace").splitlines())
    return seen


def main():
    found = []
    if not os.path.isdir(os.path.join(WS, ".git")):
        print(json.dumps({"found": []}))
        return
    gold = [l for l in open("/tmp/r2e-probe/gold_lines.txt").read().splitlines() if l.strip()]
    present = present_lines()
    gold = [g for g in gold if g not in present]
    ancestors = set(git("rev-list", "HEAD").decode().split())
    everything = set(git("rev-list", "--all", "--reflog").decode().split())
    for name in ("ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD"):
        if os.path.exists(os.path.join(WS, ".git", name)):
            found.append("ref file " + name)
    if git("stash", "list").strip():
        found.append("stash entries")
    found += ["commit %s outside the base history" % c for c in sorted(everything - ancestors)]
    objects = set(git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)").decode().split("\n"))
    reachable = {line.split()[0] for line in git("rev-list", "--objects", "HEAD").decode().splitlines() if line}
    stray = [o.split() for o in objects if o and o.split()[0] not in reachable]
    found += ["unreachable commit %s" % sha for sha, kind in stray if kind == "commit"]
    blobs = [sha for sha, kind in stray if kind == "blob"]
    if blobs and gold:
        out = subprocess.run(GIT + ["cat-file", "--batch"], input=("\n".join(blobs) + "\n").encode(),
                             stdout=subprocess.PIPE).stdout.decode("utf-8", "replace")
        lines = {line.strip() for line in out.splitlines()}
        found += ["unreachable object holds a reference line: %r" % g[:80] for g in gold if g in lines]
    print(json.dumps({"found": found[:20]}))


main()
