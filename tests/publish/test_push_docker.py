"""push and pull with a real registry (docker-registry on 127.0.0.1), real git remotes (bare repositories) and
a real Docker engine: images pinned by digest, labels made stale, an interrupted push resumed to the same
dataset, a re-push that removes a task, and a pulled dataset whose images come back from the registry."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import docker.errors
import pytest

from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.task_toml import read_task_toml
from repo2env.core.gitrepo import docker_safe
from repo2env.cli import main
from repo2env.pipeline import GenerateOptions
from repo2env.publish.dataset import MANIFEST
from repo2env.run.generate import generate
from repo2env.sources.demo_repo import build_demo_repo
from tests.helpers.harbor import run_trial
from tests.helpers.repos import git

pytestmark = pytest.mark.docker
NAME = "pushdemo"  # its own repository name: its images are its own, so the last test may delete them


@pytest.fixture(scope="module")
def generated(docker_client, tmp_path_factory):
    root = tmp_path_factory.mktemp("push")
    repo = build_demo_repo(root / NAME)
    out = root / "tasks"
    summary = generate("pr_runtime", str(repo), GenerateOptions(probes=False, out=out, numbers=(1, 4)))
    assert sorted(summary.verified) == [f"local__{NAME}-1", f"local__{NAME}-4"]
    return out


def _copy(generated: Path, dest: Path) -> Path:
    shutil.copytree(generated, dest)
    return dest


def _manifest_at(remote: Path) -> bytes:
    return subprocess.run(["git", "-C", str(remote), "show", f"main:{MANIFEST}"], capture_output=True,
                          check=True).stdout


def test_push_pins_images_marks_labels_stale_and_publishes(generated, registry, tmp_path, capsys):
    tasks = _copy(generated, tmp_path / "tasks")
    remote = tmp_path / "datasets" / "d.git"
    assert main(["push", str(tasks), "--registry", f"{registry}/r2e", "--dataset", f"git+file://{remote}"]) == 0
    out = capsys.readouterr().out
    assert "2 task(s) pinned" in out and "2 evaluation label(s) marked stale" in out
    for task in tasks.iterdir():
        meta = read_task_toml(task)["metadata"]["repo2env"]
        ref = meta["reproducibility"]["image_ref"]
        assert ref.startswith(f"{registry}/r2e/local__{NAME}@sha256:") and meta["reproducibility"]["mode"] == "registry"
        assert f"FROM {ref}\n" in (task / "environment" / "Dockerfile").read_text()
        # the image the agent runs in, built from environment/ and pushed: what consumers that pull run
        run = read_task_toml(task)["environment"]["docker_image"]
        assert run.startswith(f"{registry}/r2e/{docker_safe(task.name)}@sha256:"), run
        assert meta["bundle_hash"] == bundle_hash(task) != meta["evaluation"]["subject_bundle_hash"]
        assert meta["evaluation"]["status"] == "stale" and "bundle_rewritten" in meta["evaluation"]["reason_codes"]
    manifest = json.loads(_manifest_at(remote))
    assert [(e["id"], e["bundle_hash"], e["evaluation_status"]) for e in manifest["tasks"]] == [
        (t.name, bundle_hash(t), "stale") for t in sorted(tasks.iterdir())]
    assert not (tmp_path / "tasks.push").exists()
    # again: nothing to push, nothing to publish
    assert main(["push", str(tasks), "--registry", f"{registry}/r2e", "--dataset", f"git+file://{remote}"]) == 0
    out = capsys.readouterr().out
    assert "commit unchanged" in out and "marked stale" not in out
    # a task that is gone is removed from the dataset; the other's files are the same blobs
    before = git(remote, "ls-tree", "-r", "main", f"tasks/local__{NAME}-4")
    shutil.rmtree(tasks / f"local__{NAME}-1")
    assert main(["push", str(tasks), "--dataset", f"git+file://{remote}"]) == 0
    assert git(remote, "ls-tree", "-r", "--name-only", "main", "tasks").split("\n")[0].startswith(
        f"tasks/local__{NAME}-4/")
    assert git(remote, "ls-tree", "-r", "main", f"tasks/local__{NAME}-4") == before
    assert [e["id"] for e in json.loads(_manifest_at(remote))["tasks"]] == [f"local__{NAME}-4"]


def test_a_killed_push_resumes_to_the_same_dataset(generated, registry, tmp_path):
    killed, whole = _copy(generated, tmp_path / "a" / "tasks"), _copy(generated, tmp_path / "b" / "tasks")
    args = ["--registry", f"{registry}/fresh"]  # a new repository path: the first push really sends images
    proc = subprocess.Popen([str(Path(sys.executable).parent / "repo2rlenv"), "push", str(killed), *args, "--dataset", f"git+file://{tmp_path}/a.git"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    done = tmp_path / "a" / "tasks.push" / "done"
    while proc.poll() is None and not (done.is_dir() and any(done.glob("*.json"))):
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL, "push finished before it could be killed"
    assert not (tmp_path / "a.git").exists()  # nothing published by the killed run
    assert main(["push", str(killed), *args, "--dataset", f"git+file://{tmp_path}/a.git"]) == 0
    assert main(["push", str(whole), *args, "--dataset", f"git+file://{tmp_path}/b.git"]) == 0
    assert _manifest_at(tmp_path / "a.git") == _manifest_at(tmp_path / "b.git")
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["tasks"]  # no lock file left behind


def test_a_task_whose_image_is_missing_fails_and_nothing_is_replaced(generated, registry, tmp_path, capsys):
    tasks = _copy(generated, tmp_path / "tasks")
    broken = tasks / f"local__{NAME}-4" / "environment" / "Dockerfile"
    broken.write_text(broken.read_text().replace("FROM local/r2e-env/", "FROM local/r2e-env/missing-", 1))
    before = {t.name: bundle_hash(t) for t in tasks.iterdir()}
    assert main(["push", str(tasks), "--registry", f"{registry}/r2e", "--dataset", f"git+file://{tmp_path}/d.git"]) == 1
    out = capsys.readouterr().out
    assert f"failed: local__{NAME}-4: image local/r2e-env/missing-" in out and "nothing was published" in out
    assert {t.name: bundle_hash(t) for t in tasks.iterdir()} == before and not (tmp_path / "d.git").exists()
    assert (tmp_path / "tasks.push" / "done" / f"local__{NAME}-1.json").exists()  # kept for the next run


def test_bad_registry_and_dataset_are_one_line_errors(tmp_path, capsys):
    (tmp_path / "tasks").mkdir()
    assert main(["push", str(tmp_path / "tasks"), "--registry", "https://example.org/x"]) == 2
    assert "--registry 'https://example.org/x': expected HOST[:PORT]/PATH" in capsys.readouterr().err
    assert main(["push", str(tmp_path / "tasks"), "--dataset", "s3://bucket/x"]) == 2
    assert "--dataset s3://bucket/x: expected hf://OWNER/NAME or git+URL" in capsys.readouterr().err
    assert main(["pull", "git+file:///nonexistent/d.git", str(tmp_path / "pulled")]) == 1
    assert "cannot fetch the dataset" in capsys.readouterr().err and not (tmp_path / "pulled").exists()


def _delete_images(client, registry: str) -> None:
    """Every image of the pushdemo repository, leaves first, so that nothing of it stays on this machine."""
    order = ("local/r2e-bundle/", "local/r2e-env/", f"{registry}/", "local/r2e-bootstrap/")
    tags = [t for image in client.images.list() for t in image.tags if NAME in t]
    for prefix in order:
        for tag in [t for t in tags if t.startswith(prefix)]:
            client.images.remove(tag, force=True)
    for image in client.images.list():  # pulled by digest only: no tag names it
        for digest in [d for d in image.attrs.get("RepoDigests") or [] if NAME in d]:
            client.images.remove(digest, force=True)


def test_pull_elsewhere_runs_in_harbor_and_validate_from_the_registry(generated, registry, docker_client, harbor,
                                                                      tmp_path, capsys):
    """After a push, the dataset runs by name in the real Harbor (a registry.json entry naming the git remote's
    commit) with every local image deleted: Harbor pulls [environment].docker_image. A pulled copy's controls
    pull the same images."""
    tasks = _copy(generated, tmp_path / "tasks")
    remote = f"git+file://{tmp_path}/d.git"
    index = tmp_path / "harbor" / "registry.json"
    index.parent.mkdir()
    index.write_text(json.dumps([{"name": "other", "version": "1.0", "description": "", "tasks": []}]))
    assert main(["push", str(tasks), "--registry", f"{registry}/r2e", "--dataset", remote,
                 "--harbor-registry", str(index), "--harbor-dataset", "pushdemo@1.0"]) == 0
    assert f"harbor run -d pushdemo@1.0 --registry-path {index}" in capsys.readouterr().out
    entries = json.loads(index.read_text())
    assert [(e["name"], e["version"]) for e in entries] == [("other", "1.0"), ("pushdemo", "1.0")]
    commit = git(tmp_path / "d.git", "rev-parse", "main").strip()
    assert entries[1]["tasks"] == [{"name": t, "git_url": f"file://{tmp_path}/d.git", "git_commit_id": commit,
                                    "path": f"tasks/{t}"} for t in (f"local__{NAME}-1", f"local__{NAME}-4")]
    ref = read_task_toml(tasks / f"local__{NAME}-1")["environment"]["docker_image"]
    _delete_images(docker_client, registry)
    with pytest.raises(docker.errors.ImageNotFound):
        docker_client.images.get(ref)
    assert run_trial(harbor, None, "oracle", tmp_path / "jobs-oracle", "-d", "pushdemo@1.0", "--registry-path",
                     str(index), "-i", f"local__{NAME}-1") == 1.0
    assert docker_client.images.get(ref).id  # Harbor pulled it by digest: nothing was built
    assert not [t for image in docker_client.images.list() for t in image.tags
                if t.startswith(f"local/r2e-bundle/local__{NAME}-1:")]
    assert main(["pull", remote, str(tmp_path / "elsewhere")]) == 0
    assert "every bundle hash matches the manifest" in capsys.readouterr().out
    assert main(["validate", str(tmp_path / "elsewhere" / "tasks"), "--run", "--jobs", "2", "--in-place",
                 "--json"]) == 0
    reports = json.loads(capsys.readouterr().out)
    assert [(Path(r["path"]).name, r["status"], r["controls"]["oracle"]["reward"], r["controls"]["nop"]["reward"])
            for r in reports] == [(f"local__{NAME}-1", "verified", 1.0, 0.0), (f"local__{NAME}-4", "verified", 1.0, 0.0)]
    # one byte changed in the remote after publishing: pull refuses the dataset and leaves no folder
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", f"{tmp_path}/d.git", str(work))
    test_sh = work / "tasks" / f"local__{NAME}-4" / "tests" / "test.sh"
    test_sh.write_bytes(test_sh.read_bytes() + b"\n")
    git(work, "commit", "-qam", "tamper")
    git(work, "push", "-q", "origin", "HEAD:main")
    assert main(["pull", remote, str(tmp_path / "tampered")]) == 1
    assert "differs from the manifest" in capsys.readouterr().err and not (tmp_path / "tampered").exists()
