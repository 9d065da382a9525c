"""repo2env/publish/dataset.py against the real huggingface_hub client and a fake Hub on 127.0.0.1 (tests/hub_server.py).

Nothing of huggingface_hub is mocked: only its endpoint, token and home are pointed at the test server and a
temporary folder. Every test runs twice: through ``upload_folder``'s xet pipeline (the path taken when hf_xet is
installed, as it is here) and through its ``create_commit`` path (``HF_HUB_DISABLE_XET``).
"""

import os
import stat

import pytest

from repo2env.bundles.hashing import bundle_hash
from repo2env.publish import dataset
from repo2env.publish.dataset import DatasetError
from tests.helpers.hub_server import TOKEN, HubServer

REPO = "acme/tasks"
TARGET = f"hf://{REPO}"


def _toml(name: str) -> str:
    return (f'version = "1.0"\n[task]\nname = "default/{name}"\n[metadata.repo2env]\npipeline = "pr_runtime"\n'
            f'repo = "acme/{name}"\nref = "{name * 8}"\n[metadata.repo2env.evaluation]\nstatus = "verified"\n'
            "[metadata.repo2env.reward_calibration]\nfail_to_pass_count = 2\npass_to_pass_count = 5\n")


def make_task(root, name: str, *, executable: bool) -> "os.PathLike":
    """A minimal Harbor bundle; with ``executable`` its scripts are 0755 as real bundles have them."""
    task = root / name
    files = {"task.toml": _toml(name), "instruction.md": f"# Fix {name}\n", "solution/solve.sh": "#!/bin/bash\n",
             "tests/test.sh": f"#!/bin/bash\necho {name}\n", "environment/Dockerfile": "FROM scratch\n"}
    for rel, text in files.items():
        (task / rel).parent.mkdir(parents=True, exist_ok=True)
        (task / rel).write_text(text)
        os.chmod(task / rel, 0o755 if executable and rel.endswith(".sh") else 0o644)
    return task


def export(tmp_path, names, *, executable=False, tag="d"):
    src = tmp_path / f"src-{tag}"
    tasks = [make_task(src, n, executable=executable) for n in names]
    folder = tmp_path / f"dataset-{tag}"
    dataset.export(tasks, folder)
    return folder


def local_files(folder) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(params=["xet-pipeline", "create_commit"])
def hub(request, tmp_path, monkeypatch):
    """A started fake Hub; HF_ENDPOINT/HF_TOKEN/HF_HOME point the real client at it and at a temporary home.

    huggingface_hub copies HF_ENDPOINT (and HF_HOME, HF_HUB_OFFLINE, ...) into ``huggingface_hub.constants`` when it
    is first imported, and ``hf_hub_url`` formats ``constants.HUGGINGFACE_CO_URL_TEMPLATE`` (built from ENDPOINT at
    import) — so the environment alone is not enough once anything imported it; the constants are patched too."""
    import huggingface_hub.constants as c

    server = HubServer().start()
    home = tmp_path / "hf-home"
    monkeypatch.setenv("HF_ENDPOINT", server.url)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.delenv("HUGGING_FACE_HUB_TOKEN", raising=False)
    monkeypatch.setenv("HF_HOME", str(home))
    monkeypatch.setenv("HF_HUB_DISABLE_TELEMETRY", "1")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(c, "ENDPOINT", server.url)
    monkeypatch.setattr(c, "HUGGINGFACE_CO_URL_TEMPLATE", server.url + "/{repo_id}/resolve/{revision}/{filename}")
    monkeypatch.setattr(c, "HF_URL_HOSTS", c.HF_URL_HOSTS | {"127.0.0.1"})
    monkeypatch.setattr(c, "HF_HOME", str(home))
    monkeypatch.setattr(c, "HF_HUB_CACHE", str(home / "hub"))
    monkeypatch.setattr(c, "HF_XET_CACHE", str(home / "xet"))
    monkeypatch.setattr(c, "HF_TOKEN_PATH", str(home / "token"))
    monkeypatch.setattr(c, "HF_STORED_TOKENS_PATH", str(home / "stored_tokens"))
    monkeypatch.setattr(c, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(c, "HF_HUB_DISABLE_TELEMETRY", True)
    monkeypatch.setattr(c, "HF_HUB_DISABLE_XET", request.param == "create_commit")
    yield server
    server.stop()


def test_publish_creates_a_private_repo_with_exactly_the_dataset(hub, tmp_path):
    folder = export(tmp_path, ["alpha", "beta"])
    oid = dataset.publish(folder, TARGET)

    commits = hub.commits(REPO)
    assert [c["message"] for c in commits] == ["initial commit", "repo2rlenv dataset: 2 tasks"]
    assert oid == commits[-1]["oid"]
    assert hub.repo(REPO).private is True
    expected = local_files(folder)
    assert sorted(expected) == ["README.md", "manifest.json",
                                *[f"tasks/{t}/{f}" for t in ("alpha", "beta") for f in
                                  ("environment/Dockerfile", "instruction.md", "solution/solve.sh", "task.toml",
                                   "tests/test.sh")]]
    # the Hub's own initial commit holds .gitattributes; publish adds exactly the folder, byte for byte
    assert commits[-1]["added"] == sorted(expected) and commits[-1]["changed"] == commits[-1]["deleted"] == []
    assert hub.files(REPO) == {**expected, ".gitattributes": hub.files(REPO)[".gitattributes"]}
    # every request reached the fake Hub with the token
    assert hub.log and all(s.authorized for s in hub.log)


def test_republish_without_a_task_deletes_it_in_one_commit_and_resends_only_what_changed(hub, tmp_path):
    hub.page_size = 4  # the deletion list comes from a paged tree listing
    dataset.publish(export(tmp_path, ["alpha", "beta"], tag="two"), TARGET)
    smaller = export(tmp_path, ["alpha"], tag="one")
    oid = dataset.publish(smaller, TARGET)

    last = hub.commits(REPO)[-1]
    assert oid == last["oid"] and last["message"] == "repo2rlenv dataset: 1 tasks"
    beta = [f"tasks/beta/{f}" for f in ("environment/Dockerfile", "instruction.md", "solution/solve.sh",
                                        "task.toml", "tests/test.sh")]
    assert last["deleted"] == beta and last["deleted_ops"] == beta
    assert last["changed"] == ["README.md", "manifest.json"] and last["added"] == []
    assert last["sent"] == ["README.md", "manifest.json"]  # alpha's unchanged files were not re-sent
    assert hub.files(REPO) == {**local_files(smaller), ".gitattributes": hub.files(REPO)[".gitattributes"]}
    assert any("cursor=" in s.path for s in hub.log if "/tree/" in s.path)


def test_republishing_the_same_folder_makes_no_commit(hub, tmp_path):
    folder = export(tmp_path, ["alpha", "beta"])
    first = dataset.publish(folder, TARGET)
    before = hub.commits(REPO)
    again = dataset.publish(folder, TARGET)

    assert hub.commits(REPO) == before  # no new commit, not even an empty one
    assert not [s for s in hub.log if s.method == "POST" and "/commit/" in s.path][1:]
    # the client answers a no-op upload with the head's CommitInfo; publish says "unchanged"
    assert first == before[-1]["oid"] and again == "unchanged"


def test_pull_gives_a_verified_folder_without_cache(hub, tmp_path):
    folder = export(tmp_path, ["alpha", "beta"])
    dataset.publish(folder, TARGET)
    dest = tmp_path / "pulled"
    manifest = dataset.pull(TARGET, dest)

    assert [e["id"] for e in manifest["tasks"]] == ["alpha", "beta"]
    assert dataset.verify(dest) == manifest
    for entry in manifest["tasks"]:
        assert bundle_hash(dest / "tasks" / entry["id"]) == entry["bundle_hash"]
    assert not (dest / ".cache").exists()
    assert local_files(dest) == {**local_files(folder), ".gitattributes": hub.files(REPO)[".gitattributes"]}
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".pulled")] == []  # no partial folder left


def test_pull_of_bundles_with_executable_scripts_verifies(hub, tmp_path):
    # The Hub keeps no file modes (downloads are 0644): pull restores the manifest's executables
    folder = export(tmp_path, ["alpha"], executable=True)
    assert stat.S_IMODE((folder / "tasks/alpha/tests/test.sh").stat().st_mode) == 0o755
    dataset.publish(folder, TARGET)
    manifest = dataset.pull(TARGET, tmp_path / "pulled")
    assert manifest["tasks"][0]["executables"] == ["solution/solve.sh", "tests/test.sh"]
    assert stat.S_IMODE((tmp_path / "pulled/tasks/alpha/tests/test.sh").stat().st_mode) == 0o755
    assert stat.S_IMODE((tmp_path / "pulled/tasks/alpha/task.toml").stat().st_mode) == 0o644


def test_a_wrong_token_is_a_one_line_error_without_the_token(hub, tmp_path, monkeypatch):
    folder = export(tmp_path, ["alpha"])
    dataset.publish(folder, TARGET)
    wrong = "hf_WRONGtoken0123456789abcdefSECRET"
    monkeypatch.setenv("HF_TOKEN", wrong)

    with pytest.raises(DatasetError) as publish_err:
        dataset.publish(folder, TARGET)
    with pytest.raises(DatasetError) as pull_err:
        dataset.pull(TARGET, tmp_path / "pulled")

    for err, start in ((publish_err, f"publishing to {TARGET} failed: "),
                       (pull_err, f"cannot fetch the dataset {TARGET}: ")):
        message = str(err.value)
        assert message.startswith(start) and "401" in message, message
        assert "\n" not in message and wrong not in message and TOKEN not in message
    assert not (tmp_path / "pulled").exists()
    assert len(hub.commits(REPO)) == 2  # nothing was written with the wrong token


@pytest.mark.parametrize("action", ["publish", "pull"])
def test_an_unreachable_hub_is_a_dataset_error(hub, tmp_path, action):
    folder = export(tmp_path, ["alpha"])
    hub.stop()
    with pytest.raises(DatasetError) as err:
        if action == "publish":
            dataset.publish(folder, TARGET)
        else:
            dataset.pull(TARGET, tmp_path / "pulled")
    assert "\n" not in str(err.value) and not (tmp_path / "pulled").exists()
