"""Planning PRs: a number that two PRs of one history share (a renamed or forked repository) gives each its own
candidate key and task id, whatever --limit or the dates select; a unique number keeps SWE-bench's spelling."""

from repo2env.pipeline import GenerateOptions, load_pipeline
from tests.helpers.repos import commit_files, git


def _history_with_a_reused_number(repo):
    commit_files(repo, "start", {"pkg/__init__.py": "", "README.md": "x\n"}, date="2022-01-01T00:00:00Z")
    git(repo, "checkout", "-q", "-b", "old")
    commit_files(repo, "old fix", {"pkg/a.py": "A = 1\n"}, date="2022-01-02T00:00:00Z")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "old", "-m", "Merge pull request #250 from a/old",
        env={"GIT_AUTHOR_DATE": "2022-01-03T00:00:00Z", "GIT_COMMITTER_DATE": "2022-01-03T00:00:00Z"})
    commit_files(repo, "Fix the parser (#7)", {"pkg/b.py": "B = 1\n"}, date="2024-01-01T00:00:00Z")
    commit_files(repo, "Document the parser (#250)", {"README.md": "y\n"}, date="2025-01-01T00:00:00Z")


def test_a_reused_number_gets_two_keys_and_ids_and_a_unique_one_keeps_its_own(new_repo, tmp_path):
    repo = new_repo()
    _history_with_a_reused_number(repo)
    pipeline = load_pipeline("pr_runtime")
    plan = pipeline.plan(str(repo), GenerateOptions(out=tmp_path / "out"))
    keys = [pipeline.candidate_key(pr) for pr in plan.candidates]
    ids = [pipeline.task_id(plan.repo, pr) for pr in plan.candidates]
    heads = [pr.head_commit for pr in plan.candidates]
    assert keys == [f"pr#250@{heads[0][:12]}", "pr#7", f"pr#250@{heads[2][:12]}"]
    prefix = plan.repo.task_prefix
    assert ids == [f"{prefix}-250-{heads[0][:8]}", f"{prefix}-7", f"{prefix}-250-{heads[2][:8]}"]
    limited = load_pipeline("pr_runtime")
    one = limited.plan(str(repo), GenerateOptions(out=tmp_path / "out", limit=1))
    assert [limited.task_id(one.repo, pr) for pr in one.candidates] == ids[:1]  # --limit does not change an id
