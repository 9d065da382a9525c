"""repo2env/diff_verifier.py: each reward component on hand-made diffs from real git repositories, and the
``grade`` command on a real work tree giving the same number as ``score``."""

import json
import subprocess

import pytest

from repo2env.graders import diff_verifier as dv
from tests.helpers.repos import commit_files, git

SRC = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(12))


@pytest.fixture
def repo(new_repo):
    path = new_repo("dv")
    base = commit_files(path, "base", {"pkg/mod.py": SRC, "pkg/other.py": "A = 1\n", "README.md": "hi\n"})
    return path, base


def change(path, base, files, *args, remove=()):
    """The diff of ``files`` (written over the base) against ``base``, then reset to the base."""
    for rel, content in files.items():
        target = path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content) if isinstance(content, bytes) else target.write_text(content)
    for rel in remove:
        (path / rel).unlink()
    git(path, "add", "-A")
    out = subprocess.run(["git", "-C", str(path), "diff", "--cached", "--no-color", *args, base],
                         capture_output=True, check=True).stdout.decode()
    git(path, "reset", "-q", "--hard", base)
    git(path, "clean", "-fdq")
    return out


def test_identical_is_one_and_empty_is_the_baseline(repo):
    path, base = repo
    gold = change(path, base, {"pkg/mod.py": SRC.replace("x + 3", "x + 30").replace("x + 9", "x - 9")})
    assert dv.score(gold, gold)[0] == 1.0
    reward, details = dv.score(gold, "")
    assert reward == 0.0 and details["components"]["format"] == 0.0
    assert details["judge"] == "unavailable: no instruction" and "judge" not in details["weights_used"]
    assert abs(sum(details["weights_used"].values()) - 1.0) < 1e-9


def test_wrong_file_scores_low(repo):
    path, base = repo
    gold = change(path, base, {"pkg/mod.py": SRC.replace("x + 3", "x + 30")})
    wrong = change(path, base, {"pkg/other.py": "A = 2\n"})
    reward, details = dv.score(gold, wrong)
    assert details["components"]["file_f1"] == 0.0 and details["components"]["line_overlap"] == 0.0
    assert reward < 0.35


def test_partial_solution_lands_between(repo):
    path, base = repo
    gold = change(path, base, {"pkg/mod.py": SRC.replace("x + 3", "x + 30").replace("x + 9", "x - 9")})
    half = change(path, base, {"pkg/mod.py": SRC.replace("x + 3", "x + 30")})
    reward, details = dv.score(gold, half)
    assert details["components"]["file_f1"] == 1.0 and details["components"]["size"] == 0.5
    assert 0.5 < reward < 1.0


def test_reordered_hunks_and_files_score_the_same(repo):
    path, base = repo
    gold = change(path, base, {"pkg/mod.py": SRC.replace("x + 1\n", "x + 10\n").replace("x + 11", "x - 11"),
                               "pkg/other.py": "A = 2\n"})
    files = gold.split("diff --git ")[1:]
    mod = next(f for f in files if f.startswith("a/pkg/mod.py"))
    header, *hunks = mod.split("\n@@")
    swapped = "diff --git " + header + "".join("\n@@" + h for h in reversed(hunks))
    if not swapped.endswith("\n"):
        swapped += "\n"
    other = "diff --git " + next(f for f in files if f.startswith("a/pkg/other.py"))
    reordered = other + swapped
    assert dv.score(gold, reordered)[0] == 1.0


def test_rename(repo):
    path, base = repo
    gold = change(path, base, {"pkg/renamed.py": "A = 1\n"}, "--no-renames", remove=["pkg/other.py"])
    same = change(path, base, {"pkg/renamed.py": "A = 1\n"}, "--no-renames", remove=["pkg/other.py"])
    detected = change(path, base, {"pkg/renamed.py": "A = 1\n"}, "-M", remove=["pkg/other.py"])
    assert "rename from pkg/other.py" in detected
    assert dv.score(gold, same)[0] == 1.0
    reward, details = dv.score(gold, detected)
    assert details["components"]["file_f1"] == 1.0 and details["candidate"]["changed_lines"] == 0
    assert 0.2 < reward < 1.0


def test_binary_files_count_by_path(repo):
    path, base = repo
    png = bytes(range(256)) * 4
    gold = change(path, base, {"pkg/logo.png": png, "pkg/other.py": "A = 2\n"}, "--binary")
    plain = change(path, base, {"pkg/logo.png": png[::-1], "pkg/other.py": "A = 2\n"})
    assert "GIT binary patch" in gold and "Binary files /dev/null and b/pkg/logo.png differ" in plain
    reward, details = dv.score(gold, plain)
    assert details["components"]["file_f1"] == 1.0 and reward == 1.0
    assert details["candidate"]["binary_files"] == 1


def test_crlf_lines_match_their_lf_twins(repo):
    path, base = repo
    gold = change(path, base, {"pkg/win.py": "a = 1\r\nb = 2\r\n"})
    unix = change(path, base, {"pkg/win.py": "a = 1\nb = 2\n"})
    assert "\r" in gold and "\r" not in unix
    assert dv.score(gold, unix)[0] == 1.0


def test_malformed_candidate_scores_zero(repo):
    path, base = repo
    gold = change(path, base, {"pkg/other.py": "A = 2\n"})
    reward, details = dv.score(gold, "--- a/pkg/other.py\n+++ b/pkg/other.py\n@@ -1,3 +1,3 @@\n-A = 1\n+A = 2\n")
    assert reward == 0.0 and details["candidate"]["valid"] is False


def test_weights_are_configurable_and_normalised(repo):
    path, base = repo
    gold = change(path, base, {"pkg/mod.py": SRC.replace("x + 3", "x + 30")})
    wrong = change(path, base, {"pkg/other.py": "A = 2\n"})
    only_format = {"format": 1.0}
    assert dv.score(gold, wrong, only_format)[0] == 1.0
    assert dv.score(gold, wrong, {"file_f1": 2.0, "format": 2.0})[0] == 0.5


def test_grade_in_a_work_tree_equals_score(repo, tmp_path):
    path, base = repo
    gold = change(path, base, {"pkg/mod.py": SRC.replace("x + 3", "x + 30"), "pkg/new.py": "B = 1\n"})
    tests, logs = tmp_path / "tests", tmp_path / "logs"
    tests.mkdir(), logs.mkdir()
    (tests / "oracle.patch").write_text(gold)
    (tests / "config.json").write_text(json.dumps({"workspace": str(path), "base_commit": base}))
    (path / "pkg" / "mod.py").write_text(SRC.replace("x + 3", "x + 31"))  # close, not equal
    (path / "pkg" / "new.py").write_text("B = 1\n")  # untracked: must count
    (path / ".gitignore").write_text("*.log\n")
    (path / "build.log").write_text("ignored\n")
    assert dv.grade(str(tests), str(logs)) == dv.score(gold, dv.workspace_diff(str(path), base))[0]
    details = json.loads((logs / "reward-details.json").read_text())
    assert "pkg/new.py" in dv.workspace_diff(str(path), base) and "build.log" not in dv.workspace_diff(str(path), base)
    assert float((logs / "reward.txt").read_text()) == details["reward"] and 0.5 < details["reward"] < 1.0
    assert git(path, "status", "--porcelain").count("??") == 2  # the real index was not touched


def test_the_workspace_configuration_never_runs_in_the_grader(repo, tmp_path):
    """The agent owns the work tree's ``.git``: a ``core.fsmonitor``, a clean filter and a textconv driver it
    configures are programs the grader (root) would run in ``git add``/``git diff``. None runs; the diff is
    still the agent's change, and the workspace's ``info/exclude`` patterns still apply."""
    path, base = repo
    ran = tmp_path / "ran"
    for key in ("core.fsmonitor", "filter.evil.clean", "diff.evil.textconv"):
        git(path, "config", key, f"touch {ran}-{key}; cat")
    (path / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (path / ".git" / "info" / "exclude").write_text("*.log\n")
    (path / "build.log").write_text("ignored\n")
    (path / "pkg" / "other.py").write_text("A = 2\n")
    diff = dv.workspace_diff(str(path), base)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("ran")) == []
    assert "-A = 1\n+A = 2\n" in diff and "+* filter=evil diff=evil\n" in diff and "build.log" not in diff
