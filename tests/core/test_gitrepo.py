"""repo2env/core/gitrepo.py: input validation and the scrubbed copy that goes into images."""

import subprocess

import pytest

from repo2env.core import gitrepo
from repo2env.core.errors import InputError
from tests.helpers.repos import commit_files, git


def test_not_a_repository_and_empty_history(tmp_path, new_repo):
    with pytest.raises(InputError, match="not a git repository"):
        gitrepo.open_repo(tmp_path)
    with pytest.raises(InputError, match="no commits"):
        gitrepo.open_repo(new_repo())
    with pytest.raises(InputError, match="no such directory"):
        gitrepo.source_path(str(tmp_path / "missing"))


def test_file_url_with_escapes(tmp_path):
    target = tmp_path / "with space"
    target.mkdir()
    assert gitrepo.source_path("file://" + str(target).replace(" ", "%20")) == target


def test_scrubbed_copy_reaches_only_the_base_and_its_ancestors(new_repo, tmp_path):
    repo = new_repo()
    first = commit_files(repo, "first", {"a.py": "1\n"})
    base = commit_files(repo, "base", {"a.py": "2\n"})
    future = commit_files(repo, "future fix", {"a.py": "3\n", "secret.py": "GOLD = 'answer'\n"})
    git(repo, "tag", "v9")
    git(repo, "branch", "side", future)
    dest = tmp_path / "copy"
    gitrepo.scrubbed_copy(repo, base, dest)
    assert git(dest, "rev-parse", "HEAD").strip() == base
    assert git(dest, "log", "--all", "--format=%H").split() == [base, first]
    assert git(dest, "for-each-ref", "--format=%(refname)").split() == ["refs/heads/main"]
    assert git(dest, "remote").strip() == ""
    missing = subprocess.run(["git", "-C", str(dest), "cat-file", "-e", future], capture_output=True)
    assert missing.returncode != 0  # the future commit's objects never arrived
    assert not (dest / ".git" / "FETCH_HEAD").exists()
    assert (dest / "a.py").read_text() == "2\n"


def test_apply_check(new_repo):
    repo = new_repo()
    commit_files(repo, "base", {"a.py": "1\n"})
    good = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-1\n+2\n"
    assert gitrepo.apply_check(repo, good) is None
    assert "failed" in gitrepo.apply_check(repo, good.replace("-1\n", "-7\n"))


@pytest.mark.parametrize("name,expected", [("Ärger", "rger"), ("calc_", "calc"), ("a..b", "a.b"), ("x_.y", "x.y"),
                                           ("My Repo", "my-repo"), ("___", "repo"), ("calc-demo", "calc-demo")])
def test_docker_safe_names(name, expected):
    assert gitrepo.docker_safe(name) == expected


def test_shallow_clone_says_how_to_deepen(new_repo, tmp_path):
    repo = new_repo()
    for i in range(3):
        commit_files(repo, f"c{i}", {"a.py": f"{i}\n"})
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow)], check=True)
    with pytest.raises(InputError, match="fetch --unshallow"):
        gitrepo.open_repo(shallow)


def test_repo_ref_reads_an_origin_on_any_forge(tmp_path):
    import git

    from repo2env.core.gitrepo import repo_ref

    for url, slug, web in [("git@github.com:tkem/cachetools.git", "tkem/cachetools", "https://github.com/tkem/cachetools"),
                           ("https://codeberg.org/acme/num.git", "acme/num", "https://codeberg.org/acme/num"),
                           ("ssh://git@git.example.org:2222/team/tool.git", "team/tool",
                            "https://git.example.org/team/tool"),
                           ("/srv/mirrors/tool", "local/clone", None)]:
        path = tmp_path / url.replace("/", "_").replace(":", "_") / "clone"
        repo = git.Repo.init(path)
        repo.create_remote("origin", url)
        ref = repo_ref(repo, path)
        assert (ref.slug, ref.web_url) == (slug, web), url
