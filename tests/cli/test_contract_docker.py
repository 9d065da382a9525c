"""The command line's contract where Docker is involved, end to end on the demo repository: generate re-uses its
state, leaves no lock, labels its images, names tasks after --dataset-name; report reads its folder; a hand edit
is re-stamped and measured again; clean removes the images a dataset no longer needs."""

import json
import shutil
import tomllib

import pytest

from repo2env.cli import main
from repo2env.core import locks
from repo2env.environment import image_uses
from repo2env.environment.images import LABEL_TASK, LABEL_TOOL
from repo2env.sources.clone_cache import default_cache_dir

pytestmark = pytest.mark.docker
TASK = "local__calc-demo-5"


def _used_by(client, out):
    """The repo2rlenv images the folder ``out`` uses (environment/image_uses.py)."""
    cache = default_cache_dir()
    return [image for image in client.images.list(filters={"label": LABEL_TOOL})
            if str(out.resolve()) in image_uses.users(cache, image.tags or [image.short_id])]


def run(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_generate_again_restamp_report_clean(docker_client, demo_repo, tmp_path, capsys):
    out = tmp_path / "tasks"
    args = ("generate", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(out), "--pr", "5", "--no-probes",
            "--runs-after", "1", "--dataset-name", "demo", "--json")
    code, stdout, err = run(capsys, *args)
    assert code == 0, err
    first = json.loads(stdout)  # results on stdout, progress on stderr
    assert first["verified"] == [TASK] and first["unchanged"] == []
    assert not locks.lock_path(out).exists()
    toml = tomllib.loads((out / TASK / "task.toml").read_text())
    assert toml["task"]["name"] == f"demo/{TASK}"
    table = toml["metadata"]["repo2env"]["pr_runtime"]  # a local clone's PR: its merge date and commit too
    assert table["pr_number"] == 5 and table["merged_at"] and len(table["merge_commit"]) == 40
    assert toml["metadata"]["repo2env"]["reference"] == "local/calc-demo#5"
    # #5's new test module cannot import the name the fix adds: a feature, by the tests' own evidence
    assert toml["metadata"]["category"] == "feature" and "cannot be imported" in table["category_evidence"]
    used = _used_by(docker_client, out)  # built now or found from an earlier run: recorded either way
    assert {"env", "bundle"} <= {image.labels[LABEL_TOOL] for image in used}
    assert any(image.labels.get(LABEL_TASK) == TASK for image in used)

    code, stdout, _ = run(capsys, *args)  # nothing changed: the recorded outcome stands
    again = json.loads(stdout)
    assert code == 0 and again["unchanged"] == ["pr#5"] and again["verified"] == [TASK]
    assert again["wall_seconds"] < first["wall_seconds"] / 3

    code, stdout, _ = run(capsys, "report", str(out), "--json")
    report = json.loads(stdout)
    assert code == 0 and report["totals"]["verified"] == 1 and (tmp_path / "tasks.report.html").is_file()
    assert not (out / "report.html").exists()  # the task folder holds only tasks

    instruction = out / TASK / "instruction.md"  # a curator's edit
    instruction.write_text(instruction.read_text().replace("# ", "# Curated: ", 1))
    code, stdout, _ = run(capsys, "validate", str(out / TASK), "--json")
    assert code == 1 and "the bundle changed after it was hashed" in stdout
    code, stdout, err = run(capsys, "restamp", str(out / TASK), "--run", "--json")
    assert code == 0, err
    data = json.loads(stdout)
    assert data["restamped"][0]["changed"] and data["restamped"][0]["stale"]
    assert data["reports"][0]["status"] == "verified"
    code, _, _ = run(capsys, "hash", str(out / TASK), "--check")
    assert code == 0
    # a re-run keeps the curator's edit, even when its inputs changed meanwhile (another dataset name)
    changed = [a if a != "demo" else "demo2" for a in args]
    code, stdout, _ = run(capsys, *changed)
    assert code == 0 and json.loads(stdout)["unchanged"] == ["pr#5"]
    assert instruction.read_text().startswith("# Curated: ")

    code, stdout, _ = run(capsys, "clean", "--dataset", str(out), "--dry-run", "--json")
    assert code == 0 and json.loads(stdout)["removed"] == []  # every image is still needed
    shutil.rmtree(out / TASK)
    code, stdout, _ = run(capsys, "clean", "--dataset", str(out), "--json")
    cleaned = json.loads(stdout)
    assert code == 0 and any(tag.startswith("local/r2e-bundle/") for tag in cleaned["removed"]), cleaned
    assert not any(image.labels.get(LABEL_TASK) == TASK for image in _used_by(docker_client, out))


def test_logs_and_kept_bundles_of_a_candidate(docker_client, demo_repo, tmp_path, capsys):
    """#5 verifies: its folder holds every image build log, every test run's output and JUnit XML, both control
    transcripts and the instruction's inputs; #3 is skipped (no_fail_to_pass) after its bundle was staged:
    --keep-rejected keeps it, and its first pair of runs left no FAIL_TO_PASS candidate, so no more ran. Built two
    at a time (--jobs 2), each candidate's ledger line says where its time went."""
    out = tmp_path / "tasks"
    code, stdout, err = run(capsys, "generate", "--pipeline", "pr_runtime", str(demo_repo), "--out", str(out),
                            "--pr", "5", "--pr", "3", "--no-probes", "--runs-after", "2", "--keep-rejected", "--json",
                            "--jobs", "2")
    assert code == 0, err
    assert json.loads(stdout)["skipped"] == {"no_fail_to_pass": 1}
    logs = tmp_path / "tasks.logs"
    verified = {p.name for p in (logs / TASK).iterdir()}
    assert {"tests-before-1.log", "tests-before-1.junit.xml", "tests-before-1.json", "tests-before-2.log",
            "tests-after-1.log", "tests-after-2.log", "control-oracle-1.log", "control-nop-1.log",
            "instruction-inputs-1.json"} <= verified, verified
    inputs = json.loads((logs / TASK / "instruction-inputs-1.json").read_text())
    assert inputs["evidence"]["fail_to_pass"] and "No module named 'calc.text'" in json.dumps(
        inputs["evidence"]["import_errors"])
    skipped = {p.name for p in (logs / "local__calc-demo-3").iterdir()}
    assert {"tests-before-1.log", "tests-after-1.log"} <= skipped, skipped
    assert not {"tests-before-2.log", "tests-after-2.log"} & skipped  # the adaptive gate stopped after one pair
    assert "<testsuite" in (logs / TASK / "tests-before-1.junit.xml").read_text()
    assert "reward 1" in (logs / TASK / "control-oracle-1.log").read_text()
    kept = logs / "local__calc-demo-3" / "bundle-1"
    assert (kept / "tests" / "verifier.py").is_file()  # the staged bundle as it was when thrown away
    assert (kept / "solution" / "patch.diff").is_file()
    ledger = [json.loads(line) for line in (tmp_path / "tasks.ledger.jsonl").read_text().splitlines()]
    assert {e["candidate"]: e["logs"] for e in ledger} == {"pr#5": str(logs / TASK),
                                                           "pr#3": str(logs / "local__calc-demo-3")}
    spent = {e["candidate"]: e["timings"] for e in ledger}
    assert {"test runs", "controls"} <= set(spent["pr#5"]), spent
    assert "controls" not in spent["pr#3"]  # skipped before its controls
    # an image built in this run left its log (one found from an earlier run took no time and has none)
    assert ("image build" in spent["pr#5"]) == any(name.startswith("image-") for name in verified)
    for entry in ledger:  # exclusive stages: they add up to the candidate's wall time
        assert abs(sum(entry["timings"].values()) - entry["seconds"]) < 0.5, entry
    summary = json.loads(stdout)
    assert summary["stages"]["test runs"] >= spent["pr#5"]["test runs"] > 0


def test_sigterm_ends_a_run_like_ctrl_c(docker_client, demo_repo, tmp_path):
    # a service manager stopping a nightly sends SIGTERM: the run ends with 130 and leaves no lock or staged bundle
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "tasks"
    proc = subprocess.Popen([sys.executable, "-m", "repo2env.cli", "-q", "generate", "--pipeline", "pr_runtime",
                             str(demo_repo), "--out", str(out), "--pr", "5", "--no-probes"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.time() + 120
    while not (tmp_path / "tasks.logs").exists() and time.time() < deadline and proc.poll() is None:
        time.sleep(0.5)
    time.sleep(3)  # inside the candidate's image build or test runs
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err.decode()[-500:]
    assert not locks.lock_path(out).exists() and not (tmp_path / "tasks.staging").exists()
