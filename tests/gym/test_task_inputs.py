"""``RepoTask`` refuses what it cannot serve with a one-line error naming the bundle and what to do."""

import pytest

from repo2env.core.errors import InputError
from repo2env.gym import RepoTask


def test_a_text_only_task_is_refused_before_any_container(tmp_path):
    """A new user's report: ``pr_diff`` with ``emit_harbor_env=false`` writes a task with no environment;
    ``reset()`` failed deep in the Docker SDK (``TypeError: You must specify a directory to build in path``)."""
    bundle = tmp_path / "local__calc-1"
    bundle.mkdir()
    (bundle / "task.toml").write_text('version = "1.0"\n\n[metadata]\nauthor_name = "x"\n')
    (bundle / "instruction.md").write_text("# Fix it\n")
    with pytest.raises(InputError, match=r"local__calc-1: a text-only task .* `repo2rlenv score`"):
        RepoTask(bundle)
