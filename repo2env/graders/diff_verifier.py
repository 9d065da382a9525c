"""Diff-similarity reward for pr_diff tasks: how close a change comes to the merged (reference) diff.

Standard library only (Python 3.6+): the generator, ``repo2rlenv score`` and the bundle's ``tests/verifier.py``
(a byte-identical copy) all run this file, so they give the same number for the same input.

Components, each in [0, 1] (``specs/diff-reward.md`` gives the formulas):

- ``format``: the candidate parses as a unified diff and changes something (0 for empty or malformed).
- ``file_f1``: F1 of the sets of touched paths (old and new path of every file; a rename touches both).
- ``line_overlap``: F1 of changed line positions in old-file coordinates (removed lines at their number, added
  lines at the old line they precede; new files in their own coordinates), a position matching within
  ``RADIUS`` lines of the same path.
- ``sequence``: ``difflib.SequenceMatcher`` ratio of the changed lines (``+``/``-`` and whitespace-trimmed
  content, CR dropped), ordered by path and position, so hunk order in the patch does not matter.
- ``size``: min/max of the two counts of changed lines.
- ``judge`` (optional): an LLM's 0-10 rating /10, only when ``R2E_JUDGE_MODEL`` and ``ANTHROPIC_API_KEY`` are
  set and the ``anthropic`` package imports; when unavailable its weight is spread over the others.

Binary files count by path only. reward = sum(w_i * c_i) / sum(w_i) over available components, rounded to 4
places. A malformed candidate scores 0.

Commands: ``grade`` (in the container: diff ``/workspace`` against the base commit, untracked files included,
ignored files not; write ``reward.txt`` and ``reward-details.json``) and ``score`` (two patch files).
"""

import argparse
import bisect
import difflib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

DEFAULT_WEIGHTS = {"format": 0.1, "file_f1": 0.25, "line_overlap": 0.2, "sequence": 0.3, "size": 0.15,
                   "judge": 0.2}
COMPONENTS = ("format", "file_f1", "line_overlap", "sequence", "size", "judge")
RADIUS = 2
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
_DIFF_GIT = re.compile(r"^diff --git (\S+) (\S+)")


class PatchError(ValueError):
    """The text is not a well-formed unified diff."""


class FileChange(object):
    """One file of a patch: ``old``/``new`` paths (None for /dev/null), ``binary``, and ``lines``:
    (tag, old_pos, new_pos, text) for every ``+``/``-`` line."""

    def __init__(self, old=None, new=None):
        self.old, self.new, self.binary, self.lines = old, new, False, []

    def paths(self):
        return set(p for p in (self.old, self.new) if p)


def _strip_prefix(path):
    path = path.strip().strip('"')
    if path == "/dev/null":
        return None
    return path[2:] if path[:2] in ("a/", "b/") else path


def parse_patch(text):
    """Parse a unified (git) diff into ``FileChange`` objects. Raises ``PatchError`` on malformed hunks."""
    lines = text.replace("\r\n", "\n").split("\n")
    files, cur, i = [], None, 0
    fresh = False  # True between a `diff --git` line and its first `---`/hunk: `---`/`+++` belong to it
    while i < len(lines):
        line = lines[i]
        m = _DIFF_GIT.match(line)
        if m:
            cur = FileChange(_strip_prefix(m.group(1)), _strip_prefix(m.group(2)))
            files.append(cur)
            fresh = True
        elif line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            if not fresh:  # a plain unified diff without git headers
                cur = FileChange()
                files.append(cur)
            cur.old, cur.new = _strip_prefix(line[4:].split("\t")[0]), _strip_prefix(lines[i + 1][4:].split("\t")[0])
            fresh = False
            i += 1
        elif cur is not None and line.startswith(("new file mode", "deleted file mode")):
            if line.startswith("new"):
                cur.old = None
            else:
                cur.new = None
        elif cur is not None and line.startswith("rename from "):
            cur.old = line[len("rename from "):]
        elif cur is not None and line.startswith("rename to "):
            cur.new = line[len("rename to "):]
        elif cur is not None and (line.startswith("Binary files ") or line == "GIT binary patch"):
            cur.binary = True
            if line == "GIT binary patch":  # skip the base85 body up to the next file
                while i + 1 < len(lines) and not _DIFF_GIT.match(lines[i + 1]):
                    i += 1
        elif line.startswith("@@"):
            if cur is None:
                raise PatchError("hunk before any file header")
            fresh = False
            i = _read_hunk(lines, i, cur)
            continue
        i += 1
    return files


def _read_hunk(lines, i, cur):
    m = _HUNK.match(lines[i])
    if not m:
        raise PatchError("malformed hunk header: %r" % lines[i][:80])
    old_pos, old_left = int(m.group(1)), int(m.group(2) if m.group(2) is not None else 1)
    new_pos, new_left = int(m.group(3)), int(m.group(4) if m.group(4) is not None else 1)
    old_pos, new_pos = max(old_pos, 1), max(new_pos, 1)
    i += 1
    while (old_left > 0 or new_left > 0) and i < len(lines):
        line = lines[i]
        tag, body = (line[:1], line[1:]) if line else (" ", "")
        if tag == "\\":
            i += 1
            continue
        if tag == " ":
            old_pos, new_pos, old_left, new_left = old_pos + 1, new_pos + 1, old_left - 1, new_left - 1
        elif tag == "-":
            cur.lines.append(("-", old_pos, new_pos, body.rstrip("\r")))
            old_pos, old_left = old_pos + 1, old_left - 1
        elif tag == "+":
            cur.lines.append(("+", old_pos, new_pos, body.rstrip("\r")))
            new_pos, new_left = new_pos + 1, new_left - 1
        else:
            raise PatchError("unexpected line in hunk: %r" % line[:80])
        i += 1
    if old_left > 0 or new_left > 0:
        raise PatchError("hunk shorter than its header says")
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    return i


def _positions(files):
    out = {}
    for f in files:
        if f.old is None:  # a new file: its own coordinates
            key, pick = f.new, (lambda t, o, n: n)
        else:
            key, pick = f.old, (lambda t, o, n: o)
        out.setdefault(key, []).extend(pick(t, o, n) for t, o, n, _ in f.lines)
    return out


def _f1(precision, recall):
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def _near_fraction(a, b):
    """Fraction of positions in ``a`` within RADIUS of a position of ``b`` on the same path."""
    total = sum(len(v) for v in a.values())
    if total == 0:
        return 0.0
    hits = 0
    for path, positions in a.items():
        other = sorted(b.get(path, []))
        for p in positions:
            k = bisect.bisect_left(other, p - RADIUS)
            if k < len(other) and other[k] <= p + RADIUS:
                hits += 1
    return hits / float(total)


def _sequence_items(files):
    items = []
    for f in sorted(files, key=lambda f: (f.old or f.new or "")):
        for tag, old, new, text in sorted(f.lines, key=lambda x: (x[1], x[2], x[0] != "-")):
            items.append(tag + " ".join(text.split()))
    return items


def components(oracle_text, candidate_text):
    """The deterministic components for a candidate patch against the oracle patch (dict name -> float),
    and a summary of the candidate. A malformed candidate gives every component 0."""
    gold = parse_patch(oracle_text)
    try:
        cand = parse_patch(candidate_text)
    except PatchError as exc:
        return dict((c, 0.0) for c in COMPONENTS if c != "judge"), {"valid": False, "error": str(exc)}
    g_paths = set().union(*[f.paths() for f in gold]) if gold else set()
    c_paths = set().union(*[f.paths() for f in cand]) if cand else set()
    g_lines, c_lines = sum(len(f.lines) for f in gold), sum(len(f.lines) for f in cand)
    result = {"format": 1.0 if c_paths else 0.0}
    common = len(g_paths & c_paths)
    result["file_f1"] = _f1(common / float(len(c_paths)) if c_paths else 0.0,
                            common / float(len(g_paths)) if g_paths else 0.0)
    g_pos, c_pos = _positions(gold), _positions(cand)
    if g_lines or c_lines:
        result["line_overlap"] = _f1(_near_fraction(c_pos, g_pos), _near_fraction(g_pos, c_pos))
    else:  # only binary files or renames on both sides: the paths say it all
        result["line_overlap"] = result["file_f1"]
    g_seq, c_seq = _sequence_items(gold), _sequence_items(cand)
    if g_seq or c_seq:
        result["sequence"] = difflib.SequenceMatcher(None, g_seq, c_seq, autojunk=False).ratio()
    else:
        result["sequence"] = result["file_f1"]
    if not common:  # a change of the same size to other files is not "the right size"
        result["size"] = 0.0
    elif g_lines and c_lines:
        result["size"] = min(g_lines, c_lines) / float(max(g_lines, c_lines))
    else:
        result["size"] = 1.0 if g_lines == c_lines else 0.0
    summary = {"valid": True, "files": len(cand), "changed_lines": c_lines, "binary_files": sum(f.binary for f in cand)}
    return result, summary


def combine(parts, weights):
    """sum(w_i * c_i) / sum(w_i) over the components present in ``parts``, rounded to 4 places; and the weights
    actually used (normalised to sum to 1)."""
    used = dict((k, float(weights.get(k, 0.0))) for k in parts if float(weights.get(k, 0.0)) > 0)
    total = sum(used.values())
    if total <= 0:
        return 0.0, {}
    reward = sum(parts[k] * w for k, w in used.items()) / total
    return round(min(max(reward, 0.0), 1.0), 4), dict((k, round(w / total, 6)) for k, w in used.items())


def judge(instruction, oracle_text, candidate_text):
    """(score in [0, 1] or None, note). Asks ``R2E_JUDGE_MODEL`` through the anthropic SDK when available."""
    model = os.environ.get("R2E_JUDGE_MODEL", "").strip()
    if not model:
        return None, "unavailable: R2E_JUDGE_MODEL not set"
    if not os.environ.get("ANTHROPIC_API_KEY"):
        return None, "unavailable: ANTHROPIC_API_KEY not set"
    try:
        import anthropic
    except ImportError:
        return None, "unavailable: the anthropic package is not installed"
    prompt = ("Rate from 0 to 10 how well the CANDIDATE change solves the TASK compared with the REFERENCE "
              "change. Answer with the number only.\n\nTASK:\n%s\n\nREFERENCE:\n%s\n\nCANDIDATE:\n%s\n"
              % (instruction, oracle_text[:20000], candidate_text[:20000]))
    try:
        reply = anthropic.Anthropic(max_retries=2, timeout=60).messages.create(
            model=model, max_tokens=8, messages=[{"role": "user", "content": prompt}])
        text = "".join(getattr(b, "text", "") for b in reply.content)
        value = float(re.search(r"\d+(?:\.\d+)?", text).group())
    except Exception as exc:  # any failure only makes the judge unavailable
        return None, "unavailable: %s" % type(exc).__name__
    return min(max(value / 10.0, 0.0), 1.0), "model %s" % model


def score(oracle_text, candidate_text, weights=None, instruction=None):
    """(reward, details) for ``candidate_text`` against ``oracle_text`` with ``weights`` (default
    ``DEFAULT_WEIGHTS``). ``instruction`` enables the judge when it is configured."""
    weights = dict(DEFAULT_WEIGHTS if weights is None else weights)
    parts, summary = components(oracle_text, candidate_text)
    note = "unavailable: no instruction"
    if instruction is not None and summary.get("valid") and weights.get("judge", 0) > 0:
        value, note = judge(instruction, oracle_text, candidate_text)
        if value is not None:
            parts["judge"] = value
    if not summary.get("valid"):
        return 0.0, {"reward": 0.0, "components": parts, "weights_used": {}, "judge": note, "candidate": summary}
    reward, used = combine(parts, weights)
    details = {"reward": reward, "components": dict((k, round(v, 6)) for k, v in parts.items()),
               "weights_used": used, "judge": note, "candidate": summary}
    return reward, details


RUNNER_UID = 65534  # nobody: the user git runs as when the grader is root in a task container


def _in_task_container():
    """Root in a task container (``R2E_IN_TASK_CONTAINER=1``, set by test.sh only): git then runs as
    ``RUNNER_UID`` and that user's processes are killed after it (never on a host: ``repo2rlenv score``)."""
    return os.geteuid() == 0 and os.environ.get("R2E_IN_TASK_CONTAINER") == "1"


def _demote():
    """For git's process: no new privileges (a set-uid program does not elevate it), no groups, ``RUNNER_UID``.
    Fails closed: without ``prctl`` (``ctypes`` or ``libffi`` broken) git does not start and the grade is 0."""
    import ctypes
    if ctypes.CDLL(None, use_errno=True).prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
    os.setgroups([])
    os.setgid(RUNNER_UID)
    os.setuid(RUNNER_UID)


def _kill_runner():
    """Kill every process of ``RUNNER_UID`` (what git, or a program the agent's repository made it run, left)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/status" % entry) as handle:
                uids = [line.split()[1] for line in handle if line.startswith("Uid:")]
            if uids == [str(RUNNER_UID)]:
                os.kill(int(entry), 9)
        except (OSError, IndexError):
            continue


def workspace_diff(workspace, base_commit):
    """``git diff`` of the work tree against ``base_commit``, untracked files included (ignored ones not).

    The agent owns the work tree and its ``.git``, objects included. Git here never reads the workspace's
    configuration (a ``core.fsmonitor``, a clean filter or a diff driver there is a program git would run): it
    works in a private repository whose objects are borrowed from the workspace's (``objects/info/alternates``)
    and whose ``info/exclude`` holds the workspace's patterns; no system or global configuration is read either.
    The objects are the agent's to forge (git checks the hash of a commit and its root tree, not of every
    subtree: a planted gitlink makes ``git add`` run ``git status`` in a nested repository with that
    repository's own filters), so in a task container git runs as ``RUNNER_UID``, who cannot read the tests
    folder (closed by ``grade``) or write the reward, and whatever it started is killed after it. The
    workspace's own index and configuration are untouched."""
    contained = _in_task_container()
    scratch = tempfile.mkdtemp(prefix="r2e-git-")
    gitdir = os.path.join(scratch, "git")
    env = dict(os.environ, GIT_DIR=gitdir, GIT_WORK_TREE=workspace, GIT_CONFIG_NOSYSTEM="1",
               GIT_CONFIG_GLOBAL=os.devnull, GIT_ATTR_NOSYSTEM="1", HOME=scratch)
    env.pop("GIT_INDEX_FILE", None)
    own = os.path.join(workspace, ".git")
    run = {"env": env, "preexec_fn": _demote if contained else None}
    try:
        if contained:
            os.chown(scratch, RUNNER_UID, RUNNER_UID)
        subprocess.check_call(["git", "init", "-q", "--bare", gitdir], stdout=subprocess.DEVNULL,
                              env=dict((k, v) for k, v in env.items() if k not in ("GIT_DIR", "GIT_WORK_TREE")),
                              preexec_fn=run["preexec_fn"])
        with open(os.path.join(gitdir, "objects", "info", "alternates"), "w") as handle:
            handle.write(os.path.join(own, "objects") + "\n")
        patterns = _read_regular(os.path.join(own, "info", "exclude"), 1 << 20) or b""
        with open(os.path.join(gitdir, "info", "exclude"), "wb") as handle:
            handle.write(patterns)
        git = ["git", "-c", "core.bare=false", "-c", "core.fsmonitor=false", "-c", "core.hooksPath=" + os.devnull,
               "-c", "diff.ignoreSubmodules=all", "-c", "protocol.file.allow=never"]
        subprocess.check_call(git + ["read-tree", base_commit], **run)
        subprocess.check_call(git + ["add", "-A"], **run)
        out = subprocess.check_output(git + ["diff", "--cached", "--no-renames", "--no-color", "--no-ext-diff",
                                             "--no-textconv", "--ignore-submodules=all", base_commit], **run)
    finally:
        if contained:
            _kill_runner()
        shutil.rmtree(scratch, ignore_errors=True)
    return out.decode("utf-8", "replace")


def _read_regular(path, limit):
    """The bytes of ``path`` when it is a regular file (not through a symlink, never a FIFO's blocking read) of
    at most ``limit`` bytes, else None."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return handle.read(limit)


def _read(path):
    # UTF-8 whatever the container's locale; newline="" keeps CRLF for parse_patch to normalise
    with io.open(path, encoding="utf-8", errors="replace", newline="") as handle:
        return handle.read()


def _write_atomic(path, text):
    tmp = path + ".tmp"
    with io.open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.rename(tmp, path)


def grade(tests_dir, logs_dir):
    """Score ``/workspace`` against ``tests/oracle.patch``; always leaves a reward file (0 on any error)."""
    reward, details = 0.0, {}
    try:
        config = json.loads(_read(os.path.join(tests_dir, "config.json")))
        oracle = _read(os.path.join(tests_dir, "oracle.patch"))
        instruction = None
        if os.path.exists(os.path.join(tests_dir, "instruction.md")):
            instruction = _read(os.path.join(tests_dir, "instruction.md"))
        if _in_task_container():  # what git runs, as the runner user, must not read the reference
            os.chmod(tests_dir, 0o700)
        candidate = workspace_diff(config["workspace"], config["base_commit"])
        reward, details = score(oracle, candidate, config.get("weights"), instruction)
    except Exception as exc:  # the verifier must always write a reward
        details = {"reward": 0.0, "error": "%s: %s" % (type(exc).__name__, exc)}
    _write_atomic(os.path.join(logs_dir, "reward-details.json"),
                  json.dumps(details, indent=1, sort_keys=True) + "\n")
    _write_atomic(os.path.join(logs_dir, "reward.txt"), "%s\n" % reward)
    return reward


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command")
    g = sub.add_parser("grade")
    g.add_argument("--tests-dir", default="/tests")
    g.add_argument("--logs-dir", default="/logs/verifier")
    s = sub.add_parser("score")
    s.add_argument("oracle")
    s.add_argument("candidate")
    args = parser.parse_args(argv)
    if args.command == "grade":
        grade(args.tests_dir, args.logs_dir)
        return 0
    if args.command == "score":
        reward, details = score(_read(args.oracle), _read(args.candidate))
        print(json.dumps(details, indent=1, sort_keys=True))
        return 0
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
