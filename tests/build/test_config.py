"""dataset.toml validation, the state database's refusal of a foreign file, URL redaction and dataset pull errors:
bad input is one line naming the input, before any work (no Docker needed)."""

import sqlite3

import pytest

from repo2env.build.config import load
from repo2env.cli import main
from repo2env.core.errors import InputError, redact_url
from repo2env.run.state import State
from tests.helpers.repos import commit_files


def _write(tmp_path, text):
    path = tmp_path / "dataset.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("body, message", [
    ('out = "o"\n[[sources]]\nsource = "x"\npipelines = ["nosuch"]\n', "pipeline 'nosuch' is not installed"),
    ('out = "o"\n[[sources]]\nsource = "x"\npipelines = ["pr_runtime"]\n[pipelines.nosuch]\n',
     "pipeline 'nosuch' is not installed"),
    ('out = "o"\n[[sources]]\nsource = "x"\npipelines = ["pr_runtime"]\nsince = 2025-06-01\nuntil = 2025-01-01\n',
     "sources.0: since is after until; swap them"),
    ('out = "o"\n[[sources]]\nsource = "x"\npipelines = ["pr_runtime"]\n[push]\nregistry = "https://x"\n',
     "push: registry 'https://x': expected HOST[:PORT]/PATH"),
    ('out = "o"\n[[sources]]\nsource = "x"\npipelines = ["pr_runtime"]\n[push]\ndataset = "s3://x"\n',
     "push: dataset s3://x: expected hf://OWNER/NAME or git+URL"),
    ('out = "o"\njobs = 0\n[[sources]]\nsource = "x"\npipelines = ["pr_runtime"]\n', "jobs: Input should be greater"),
    ('out = "o"\nformat = "x"\n[[sources]]\nsource = "x"\npipelines = ["pr_runtime"]\n', "format: Value error"),
])
def test_config_mistakes_are_refused_at_load(tmp_path, body, message):
    with pytest.raises(InputError) as err:
        load(_write(tmp_path, body))
    assert message in str(err.value) and str(tmp_path / "dataset.toml") in str(err.value)
    assert not (tmp_path / "o").exists()


def test_a_foreign_state_file_is_refused_and_left_alone(tmp_path, capsys):
    garbage = tmp_path / "out" / "state.sqlite"
    garbage.parent.mkdir()
    garbage.write_bytes(b"not a database" * 100)
    with pytest.raises(InputError, match="not a repo2rlenv state database"):
        State(garbage)
    assert garbage.read_bytes() == b"not a database" * 100
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).execute("CREATE TABLE candidates (x)").connection.commit()
    with pytest.raises(InputError, match="not a repo2rlenv state database"):
        State(other)
    assert main(["report", str(tmp_path / "out")]) == 2
    assert "not a repo2rlenv state database" in capsys.readouterr().err


def test_urls_lose_their_credentials():
    assert redact_url("git+https://u:tok_SECRET@h/x.git and https://tok@h2/y") == "git+https://***@h/x.git and https://***@h2/y"
    assert redact_url("https://h/x") == "https://h/x"


def test_pull_and_push_errors_are_one_line_without_secrets(tmp_path, new_repo, capsys):
    plain = new_repo("plain")
    commit_files(plain, "init", {"a.txt": "a\n"})
    assert main(["pull", f"git+file://{plain}", str(tmp_path / "d")]) == 1
    err = capsys.readouterr().err
    assert "not a repo2rlenv dataset (no manifest.json" in err and ".pull-" not in err
    assert main(["pull", "git+https://u:tok_SECRET456@127.0.0.1:1/x.git", str(tmp_path / "d2")]) == 1
    err = capsys.readouterr().err
    assert "tok_SECRET456" not in err and "cannot fetch the dataset git+https://***@127.0.0.1:1/x.git" in err
    (tmp_path / "tasks").mkdir()
    assert main(["push", str(tmp_path / "tasks"), "--dataset", "s3://u:SECRET@x/y"]) == 2
    assert "SECRET" not in capsys.readouterr().err
