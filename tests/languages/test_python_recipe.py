"""repo2env/languages/python/recipe.py and repo2env/environment/overrides.py: install recipes detected at the base commit."""

import pytest

from repo2env.core.errors import InputError
from repo2env.environment.overrides import load_env_config
from repo2env.languages.python.recipe import detect_recipe
from tests.helpers.repos import commit_files


def test_pyproject_test_extra_and_requirements(new_repo):
    repo = new_repo()
    sha = commit_files(repo, "init", {
        "pyproject.toml": '[project]\nname="x"\n[project.optional-dependencies]\ntests=["pytest"]\ndev=["ruff"]\n',
        "requirements-dev.txt": "hypothesis\n", "tox.ini": "[testenv]\ndeps =\n    mock\n    -rreq.txt\n    {posargs}\n"},
        date="2024-05-06T07:08:09Z")
    recipe = detect_recipe(repo, sha)
    (cmd,) = recipe.commands
    assert cmd.startswith("uv pip install --system --exclude-newer 2024-05-06T07:08:09Z")
    assert "--exclude-newer-package setuptools=2025-06-01T00:00:00Z" in cmd
    assert cmd.endswith("-e '.[tests]' -r requirements-dev.txt mock pytest")
    assert recipe.exclude_newer == "2024-05-06T07:08:09Z"
    assert recipe.source == "detected:pyproject.toml,requirements-dev.txt,tox.ini"
    # the pretend version is the project's only: a dependency built from an sdist keeps its own version
    assert recipe.env["SETUPTOOLS_SCM_PRETEND_VERSION_FOR_X"] == "0.0.0"
    assert "SETUPTOOLS_SCM_PRETEND_VERSION" not in recipe.env


def test_setup_cfg_extras_and_plain_requirements(new_repo):
    repo = new_repo()
    sha = commit_files(repo, "init", {"setup.py": "from setuptools import setup\nsetup(extras_require={'testing': ['x']})\n",
                                      "setup.cfg": "[options.extras_require]\ndev = black\n"}, date="2026-01-01T00:00:00Z")
    (cmd,) = detect_recipe(repo, sha).commands
    assert cmd.endswith("-e '.[testing]' pytest") and "exclude-newer-package" not in cmd


def test_not_installable_uses_pythonpath(new_repo):
    repo = new_repo()
    sha = commit_files(repo, "init", {"requirements.txt": "attrs\n", "src/pkg/__init__.py": ""})
    recipe = detect_recipe(repo, sha)
    assert recipe.commands[0].endswith("-r requirements.txt pytest")
    assert recipe.env["PYTHONPATH"] == "/workspace/src:/workspace"


def test_config_override(tmp_path, new_repo):
    repo = new_repo()
    sha = commit_files(repo, "init", {"setup.py": "\n"})
    cfg = tmp_path / "r.toml"
    cfg.write_text('[repos."local/x"]\napt_packages = ["libxml2-dev"]\ninstall = ["make deps"]\nenv = {A = "1"}\n')
    recipe = detect_recipe(repo, sha, load_env_config(cfg).for_repo("local/x"))
    assert recipe.commands == ("make deps",) and recipe.apt_packages == ("libxml2-dev",)
    assert recipe.source == "config" and recipe.env["A"] == "1"


@pytest.mark.parametrize("text,message", [("[repos", "not valid TOML"), ('[repos."a/b"]\ninstal = []\n', "instal"),
                                          ("[other]\n", "other")])
def test_bad_config_files(tmp_path, text, message):
    cfg = tmp_path / "bad.toml"
    cfg.write_text(text)
    with pytest.raises(InputError, match=message):
        load_env_config(cfg)
    with pytest.raises(InputError, match="cannot read"):
        load_env_config(tmp_path / "missing.toml")


@pytest.mark.parametrize("files, variable", [
    ({"setup.cfg": "[metadata]\nname = zope.interface-extra\n"}, "SETUPTOOLS_SCM_PRETEND_VERSION_FOR_ZOPE_INTERFACE_EXTRA"),
    ({"setup.py": "from setuptools import setup\nsetup(name='my_Pkg.x')\n"}, "SETUPTOOLS_SCM_PRETEND_VERSION_FOR_MY_PKG_X"),
    ({"setup.py": "from setuptools import setup\nsetup(name=NAME)\n"}, "SETUPTOOLS_SCM_PRETEND_VERSION"),
])
def test_the_pretend_version_names_the_distribution(new_repo, files, variable):
    repo = new_repo()
    sha = commit_files(repo, "init", files)
    env = detect_recipe(repo, sha).env
    assert [k for k in env if k.startswith("SETUPTOOLS_SCM")] == [variable] and env[variable] == "0.0.0"
