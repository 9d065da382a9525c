"""repo2env/languages/python/recipe.py and repo2env/environment/overrides.py: install recipes detected at the base commit."""

import subprocess

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


# --- what the tests need, and the Python, found in the project's own files ---------------------------------------

from repo2env.languages.python import feedback, needs, recipe, versions  # noqa: E402
from repo2env.languages.python.project import ProjectFiles  # noqa: E402


def _pf(new_repo, files, date="2025-01-01T00:00:00Z"):
    repo = new_repo()
    sha = commit_files(repo, "init", files, date=date)
    return repo, sha, ProjectFiles.read(repo, sha)


def test_extras_named_by_tox_factors_nox_and_ci(new_repo):
    _, _, pf = _pf(new_repo, {
        "setup.py": "from setuptools import setup\nEXTRAS = {'crypto': ['cryptography>=3'], 'docs': ['sphinx']}\n"
                    "EXTRAS['yaml'] = ['PyYAML']\nsetup(name='lib', extras_require=EXTRAS,\n"
                    "      tests_require=['pretend'], python_requires='>=3.8')\n",
        "tox.ini": "[tox]\nenvlist = py{38,39}-{crypto,nocrypto}\n[testenv]\nextras =\n    tests\n    crypto: crypto\n"
                   "deps =\n    nocrypto: mock>=2\n    -r{toxinidir}/requirements/ci.txt\n[testenv:docs]\nextras = docs\n",
        "noxfile.py": "import nox\n\n@nox.session\ndef tests(session):\n    session.install('.[yaml]', 'coverage')\n"
                      "\n@nox.session\ndef lint(session):\n    session.install('ruff')\n",
        ".github/workflows/ci.yml": "jobs:\n  t:\n    steps:\n      - run: |\n          pip install -e '.[crypto]'\n"
                                    "          uv pip install --group typing -r requirements-ci.txt\n",
        "requirements/ci.txt": "hypothesis\n"})
    found = needs.find(pf)
    assert found.extras == {"crypto": "tox.ini [testenv] extras (factor crypto)",
                            "yaml": "noxfile.py session tests"}  # docs is a docs env; tests is not declared
    assert found.packages == {"mock>=2": "tox.ini [testenv] deps (factor nocrypto)", "coverage":
                              "noxfile.py session tests", "pretend": "tests_require"}
    assert found.requirement_files == {"requirements/ci.txt": "tox.ini [testenv] deps"}
    assert found.provider("Cryptography") == ("extra", "crypto") and found.provider("pyyaml") == ("extra", "yaml")


def test_pep735_groups_poetry_and_hatch(new_repo):
    _, _, pf = _pf(new_repo, {"pyproject.toml": '''
[project]
name = "x"
[dependency-groups]
lint = ["ruff"]
test = ["pytest", {include-group = "fixtures"}]
fixtures = ["pretend"]
[tool.poetry.group.dev.dependencies]
freezegun = "^1.2"
requests = {version = "~2.31", extras = ["socks"]}
local = {path = "../local"}
[tool.hatch.envs.default]
dependencies = ["coverage[toml]"]
features = ["yaml"]
'''})
    found = needs.find(pf)
    assert found.groups == {"test": "the project's dependency group for tests"}
    assert found.declared_groups["test"] == ["pytest", "pretend"] and found.provider("pretend") == ("group", "test")
    assert found.packages == {"freezegun>=1.2": "pyproject.toml [tool.poetry.group.dev.dependencies]",
                              "requests[socks]>=2.31": "pyproject.toml [tool.poetry.group.dev.dependencies]",
                              "coverage[toml]": "pyproject.toml [tool.hatch.envs.default]"}
    assert found.extras == {}  # hatch's feature names no declared extra


@pytest.mark.parametrize("files, date, order, why", [
    # requires-python caps below 3.12: the newest allowed one
    ({"pyproject.toml": '[project]\nname="x"\nrequires-python = ">=3.9,<3.12"\n'}, "2025-01-01",
     ("3.11", "3.10", "3.9"), "3.11: newest of 3.9, 3.10, 3.11 released by 2025-01-01; requires-python >=3.9,<3.12"),
    # classifiers narrow, the date drops what was not released yet (3.12 came out in October 2023)
    ({"setup.cfg": "[metadata]\nclassifiers =\n    Programming Language :: Python :: 3.8\n"
                   "    Programming Language :: Python :: 3.12\n    Programming Language :: Python :: 3.11\n"},
     "2023-06-01", ("3.11", "3.10", "3.9", "3.8"), "3.11: newest of 3.8, 3.11 (classifiers) released by 2023-06-01"),
    # a CI matrix, and nothing older than 3.8 is on offer: an old commit gets the oldest
    ({".github/workflows/t.yml": "jobs:\n  t:\n    strategy:\n      matrix:\n        python-version: ['3.6', 3.7]\n"},
     "2018-05-01", ("3.8",), "3.8: the oldest Python on offer; the commit (2018-05-01) predates it (it names 3.6, 3.7)"),
    # nothing below 3.13 allowed
    ({"pyproject.toml": '[project]\nname="x"\nrequires-python = ">=3.13"\n'}, "2025-01-01", ("3.13",),
     "3.13: newest of 3.13 released by 2025-01-01; requires-python >=3.13"),
    ({"pyproject.toml": '[project]\nname="x"\nrequires-python = "<3.6"\n'}, "2025-01-01", (),
     "requires-python <3.6 allows none of 3.8, 3.9, 3.10, 3.11, 3.12, 3.13"),
])
def test_the_python_per_base_commit(new_repo, files, date, order, why):
    _, _, pf = _pf(new_repo, files, date=date + "T00:00:00Z")
    choice = versions.choose(pf)
    assert choice.order == order and choice.why == why


def test_old_commits_floor_pytest_for_the_chosen_python(new_repo):
    repo, sha, _ = _pf(new_repo, {"setup.py": "from setuptools import setup\nsetup(name='old')\n",
                                  "requirements-test.txt": "pytest-cov\npytest_mock==1.0\n"}, date="2016-03-01T00:00:00Z")
    plans, _ = recipe.rungs(repo, sha)
    assert [recipe.rung_label(p) for p in plans] == ["3.8", "3.8, newer test tooling", "3.8, build tools floored",
                                                     "3.8, build tools of the commit's era"]
    newer = recipe.detect_recipe(repo, sha, None, plans[1]).commands
    assert "'pytest>=7.0.1'" in newer[0] and "pytest=2022-02-25T00:00:00Z" in newer[1]
    dated = recipe.detect_recipe(repo, sha, None, plans[3]).commands[1]  # an old setup.py's own setuptools
    assert "setuptools=2020-02-12T00:00:00Z" in dated and "pytest=2020-02-12T00:00:00Z" in dated
    made = recipe.detect_recipe(repo, sha)
    overrides, cmd = made.commands
    # the project's own pin of a plugin (pytest_mock==1.0) gives way: uv's overrides replace it
    assert overrides == "printf '%s\\n' 'pytest>=5.3.5' pytest-cov pytest-mock > /tmp/r2e-overrides.txt"
    assert cmd.endswith(" pytest --overrides /tmp/r2e-overrides.txt")
    # pytest 5.3.5 is the oldest that runs on 3.8: pytest, its dependencies and the plugins named resolve as of then
    for name in ("pytest", "pluggy", "py", "pytest-cov", "pytest-mock"):
        assert f"--exclude-newer-package {name}=2020-02-12T00:00:00Z" in cmd
    assert "cython=" not in cmd  # the wider build-tool floor is the next rung's
    assert "--exclude-newer-package cython=2025-06-01T00:00:00Z" in recipe.detect_recipe(repo, sha, None,
                                                                                       plans[2]).commands[1]
    assert {p.kind for p in made.parts} == {"python", "tooling", "build_tools", "requirements"}


def test_feedback_maps_missing_modules_to_extras_groups_and_packages(new_repo):
    _, _, pf = _pf(new_repo, {"pyproject.toml": '[project]\nname="lib"\n[project.optional-dependencies]\n'
                                                'crypto = ["cryptography>=41"]\nyaml = ["PyYAML"]\n',
                              "lib/__init__.py": "", "tests/helpers/util.py": ""})
    found = needs.find(pf)
    skips = {"t::a": "could not import 'cryptography': No module named 'cryptography'",
             "t::b": "requires PyYAML to be installed",
             "t::c": "could not import 'lib.speedups'"}  # the project's own module: never a package
    errors = {"tests/test_x.py": "E   ModuleNotFoundError: No module named 'pretend'",
              "tests/test_y.py": "ModuleNotFoundError: No module named 'helpers'",
              "tests/test_z.py": "ModuleNotFoundError: No module named 'tomllib'",  # stdlib of a newer Python
              "tests/test_w.py": "ModuleNotFoundError: No module named 'google.protobuf'"}
    added = feedback.additions(pf, found, skips, errors, have={})
    assert {k: sorted(v) for k, v in added.items()} == {"extra": ["crypto", "yaml"],
                                                        "package": ["pretend", "protobuf"]}
    assert added["extra"]["crypto"] == "tests said: could not import 'cryptography': No module named 'cryptography'"
    assert feedback.additions(pf, found, skips, errors, have={k: set(v) for k, v in added.items()}) == {}


def test_a_setup_agent_proposal_is_checked_name_by_name():
    plan = {"python": "3.12"}
    proposed = recipe.plan_from_proposal(plan, {
        "python": "3.10", "packages": ["numpy<1.24", "rm -rf /", "ok-pkg"], "apt_packages": ["libxml2-dev", "a;b"],
        "extras": ["crypto", "x y"], "env": {"CFLAGS": "-O0", "bad name": "1"}, "why": "numpy 1.24 removed np.int"})
    assert proposed == {"python": "3.10", "add": {
        "package": {"numpy<1.24": "numpy 1.24 removed np.int", "ok-pkg": "numpy 1.24 removed np.int"},
        "apt": {"libxml2-dev": "numpy 1.24 removed np.int"}, "extra": {"crypto": "numpy 1.24 removed np.int"},
        "env": {"CFLAGS": "-O0"}}}
    assert recipe.plan_from_proposal(plan, {"python": "2.7", "packages": ["!!"]}) is None


def test_tox_variants_markers_substitutions_and_non_test_envs(new_repo):
    _, _, pf = _pf(new_repo, {
        "setup.py": "from setuptools import setup\nsetup(name='w', extras_require=dict(test=['pytest'], "
                    "crypto=CRYPTO))\nCRYPTO = ['cryptography']\n",
        "tox.ini": "[base]\ndeps = requests\n[tox]\nenvlist = py{38,39}-django{22,32}\n[testenv]\nextras = test,crypto\n"
                   "deps =\n    {[base]deps}\n    django22: Django>=2.2,<2.3\n    django32: Django>=3.2,<3.3\n"
                   "    importlib-metadata; python_version < \"3.8\"\n[testenv:pre-commit]\ndeps = pre-commit\n",
        ".github/workflows/docs.yml": "jobs:\n  d:\n    steps:\n      - run: pip install -e .[docs] -r docs/r.txt\n",
        ".github/workflows/ci.yml": "jobs:\n  lint:\n    steps:\n      - run: pip install .[lint]\n"
                                    "  tests:\n    strategy:\n      matrix:\n        python-version: [3.8, 3.9, 3.10]\n"
                                    "    steps:\n      - run: pip install .[crypto]\n",
        "CITATION.txt": "cite me\n", "test-requirements-py2.txt": "mock\n", "requirements_dev.txt": "tox\n"},
        date="2022-06-01T00:00:00Z")
    found = needs.find(pf)
    # one variant per distribution (the newest listed), markers kept whole, [base] expanded, pre-commit not a test env
    assert list(found.packages) == ["requests", "Django>=3.2,<3.3", 'importlib-metadata; python_version < "3.8"']
    assert sorted(found.extras) == ["crypto", "test"]  # dict(...) extras read; docs and lint jobs are not tests
    assert found.requirement_files == {"requirements_dev.txt": "test/dev requirements file"}
    assert versions.choose(pf).order[0] == "3.10"  # YAML would have read 3.10 as 3.1


@pytest.mark.parametrize("files", [
    {"setup.py": "extras = {'test': ['x']}\nclass C:\n    def f(self):\n        extras = ['--inplace']\n"
                 "setup(extras_require=extras, tests_require=('pytest',))\n", "setup.cfg": "[options]\ntests_require = mock\n"},
    {"pyproject.toml": 'project = "x"\ntool = "y"\n'},
    {"pyproject.toml": '[project]\noptional-dependencies = ["a"]\n[tool.poetry.group.test]\ndependencies = ["x"]\n'
                       '[tool.pdm]\ndev-dependencies = ["x"]\n[tool.hatch.envs.default]\ndependencies = "pytest"\n'},
    {"tox.toml": 'env_list = 3\nenv_run_base = ["x"]\nenv = ["y"]\n'},
    {".github/workflows/t.yml": "a: &a [*a]\nb: 2020-13-45\n", "setup.py": "setup(tests_require='pytest')\n"},
])
def test_malformed_project_files_are_no_evidence_never_a_crash(new_repo, files):
    repo, sha, pf = _pf(new_repo, files)
    found = needs.find(pf)
    assert all(len(p) > 1 for p in found.packages)  # never a string split into letters
    recipe.detect_recipe(repo, sha)
    versions.choose(pf)


def test_python_evidence_from_poetry_and_tox4(new_repo):
    _, _, pf = _pf(new_repo, {"pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.8,<3.10"\n'})
    assert versions.choose(pf).order[0] == "3.9"
    _, _, pf = _pf(new_repo, {"tox.ini": "[tox]\nenv_list = py310, py311\n"}, date="2023-06-01T00:00:00Z")
    assert versions.choose(pf).order[0] == "3.11" and "tox envlist" in versions.choose(pf).why


def test_feedback_namespaces_removed_stdlib_and_punctuation(new_repo):
    _, _, pf = _pf(new_repo, {"pyproject.toml": '[project]\nname="n"\n[project.optional-dependencies]\n'
                                                'cache = ["redis>=4"]\nblob = ["azure-storage-blob"]\n'})
    found = needs.find(pf)
    errors = {"a": "No module named 'zope.interface'", "b": "No module named 'distutils'",
              "c": "No module named 'imp'"}
    skips = {"d": "Skipped: requires redis.", "e": "could not import 'azure.storage'"}
    added = feedback.additions(pf, found, skips, errors, have={})
    assert {k: sorted(v) for k, v in added.items()} == {"extra": ["cache"],
                                                        "package": ["azure-storage", "setuptools", "zope-interface"]}


@pytest.mark.parametrize("log, packages", [
    ("RuntimeError: autoconf error", {"build-essential"}),
    ("error: command 'x86_64-linux-gnu-gcc' failed: No such file or directory", {"build-essential"}),
    ("src/c/_cffi_backend.c:15:10: fatal error: ffi.h: No such file or directory", {"build-essential", "libffi-dev"}),
    ("Error: pg_config executable not found.", {"build-essential", "libpq-dev"}),
    ("ModuleNotFoundError: No module named 'numpy'", set()),
])
def test_a_failed_install_names_the_system_packages_it_lacks(log, packages):
    assert set(feedback.system_packages(log)) == packages


def test_tox_commands_pre_installs_docs_factors_and_ci_pins(new_repo):
    repo, sha, pf = _pf(new_repo, {
        "setup.py": "from setuptools import setup\nsetup(name='t', extras_require={'pandas': ['pandas']})\n",
        "requirements.txt": "pandas==0.20.3\n",
        ".travis.yml": "install:\n  - pip install -r requirements.txt\n",
        "tox.ini": "[tox]\nenvlist = docs, py38\n[testenv]\ndeps =\n    pytest\n    docs: sphinx\n"
                   "commands_pre =\n    pip install --only-binary :all: pandas openpyxl>=3\ncommands = pytest {posargs}\n"},
        date="2021-06-01T00:00:00Z")
    found = needs.find(pf)
    assert list(found.packages) == ["pytest", "pandas", "openpyxl>=3"]  # sphinx belongs to the docs factor
    assert found.requirement_files == {"requirements.txt": "CI .travis.yml"}
    plans, _ = recipe.rungs(repo, sha)
    own = next(p for p in plans if p.get("requirements") == "own")
    assert own["if"] == ["install_failed"]
    assert "-r requirements.txt" in recipe.detect_recipe(repo, sha).commands[-1]
    assert "-r requirements.txt" not in recipe.detect_recipe(repo, sha, None, own).commands[-1]
    # new setuptools needs a packaging of its time: packaging is floored with it
    assert "--exclude-newer-package packaging=2025-06-01T00:00:00Z" in recipe.detect_recipe(repo, sha).commands[-1]


def test_tox_envs_that_do_not_run_tests_are_not_test_needs(new_repo):
    _, _, pf = _pf(new_repo, {
        "pyproject.toml": '[project]\nname="p"\n[dependency-groups]\ntest = ["pytest"]\nfix = ["pre-commit-uv"]\n'
                          'pkg-meta = ["check-wheel-contents"]\n',
        "tox.toml": 'env_list = ["3.12", "fix", "pkg_meta", "py-lite"]\n[env_run_base]\ndependency_groups = ["test"]\n'
                    'commands = [["pytest", "tests"]]\n[env.fix]\ndependency_groups = ["fix"]\n'
                    'commands = [["pre-commit", "run"]]\n[env.pkg_meta]\ndependency_groups = ["pkg-meta"]\n'
                    '[env.py-lite]\nextras = []\n',
        "tox.ini": "[testenv:release]\ndeps = twine\ncommands = twine upload dist/*\n"})
    found = needs.find(pf)
    assert found.groups == {"test": "the project's dependency group for tests"} and "twine" not in found.packages


def test_requirements_files_that_pin_the_project_itself_are_installed_without_that_pin(new_repo):
    """pip-compile'd docs/dev files of a project pin the project itself (MarkupSafe's ``requirements/dev.txt``
    holds ``markupsafe==2.1.5`` by way of Jinja): with the editable install of another version, uv finds no
    solution. The recipe writes copies without that line (a ``--hash`` continuation with it; an include of such
    a file pointing to its copy), installs from them, and removes them."""
    repo = new_repo()
    dev = ("-r docs.txt\nalabaster==1.0.0\nMark_Up.Safe==2.1.5 \\\n    --hash=sha256:abc\n    # via\n"
           "    #   -r docs.txt\nmarkupsafer==1.0\ntox\n")
    sha = commit_files(repo, "init", {
        "pyproject.toml": '[project]\nname = "mark-up-safe"\n[build-system]\nrequires = ["flit_core"]\n',
        "requirements/dev.txt": dev, "requirements/docs.txt": "sphinx\nmark-up-safe>=2 ; python_version > '3'\n",
        "requirements/tests.txt": "pytest\n", "tox.ini": "[testenv]\ndeps = -r requirements/tests.txt\n"})
    recipe = detect_recipe(repo, sha)
    *writes, install, remove = recipe.commands
    assert "-r requirements/tests.txt" in install and "-r requirements/.r2e-dev.txt" in install
    assert remove == "rm -f requirements/.r2e-dev.txt requirements/.r2e-docs.txt"
    subprocess.run(["sh", "-c", " && ".join(writes)], cwd=repo, check=True)
    assert (repo / "requirements/.r2e-dev.txt").read_text() == (
        "-r .r2e-docs.txt\nalabaster==1.0.0\n    # via\n    #   -r docs.txt\nmarkupsafer==1.0\ntox\n")
    assert (repo / "requirements/.r2e-docs.txt").read_text() == "sphinx\n"
    assert any(p.name == "requirements/dev.txt" and "without its pin of mark-up-safe" in p.why for p in recipe.parts)
    subprocess.run(["sh", "-c", remove], cwd=repo, check=True)
    assert not list((repo / "requirements").glob(".r2e-*"))
    # nothing to rewrite: the files as they are
    other = new_repo()
    sha = commit_files(other, "init", {"pyproject.toml": '[project]\nname = "x"\n', "requirements/dev.txt": "xy\n"})
    assert len(detect_recipe(other, sha).commands) == 1


def test_a_src_layout_that_is_not_installed_is_put_on_sys_path_by_a_path_file(new_repo, tmp_path):
    """The grader runs pytest without the image's PYTHONPATH, and the rung with the build tools of a commit's era
    uninstalls the project after installing its dependencies: a src layout was importable in neither (a new
    user's run lost 4 candidates). The recipe ends by writing a path file into site-packages; run with a real
    interpreter, it makes ``/workspace/src``'s packages importable from anywhere."""
    import shlex
    import sys

    repo = new_repo()
    sha = commit_files(repo, "init", {"requirements.txt": "attrs\n", "src/pkg/__init__.py": ""})
    recipe = detect_recipe(repo, sha)
    assert shlex.split(recipe.commands[-1])[:2] == ["python3", "-c"]
    old = commit_files(repo, "old", {"setup.py": "from setuptools import setup\nsetup(name='pkg')\n"},
                       date="2016-01-01T00:00:00Z")
    dated = detect_recipe(repo, old, plan={"python": "3.8", "dated_build_tools": True})
    assert dated.commands[-2].startswith("uv pip uninstall --system pkg") and dated.commands[-1] == recipe.commands[-1]
    assert not any("r2e_workspace_src" in c for c in detect_recipe(repo, old).commands)  # editable: no need
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    code = shlex.split(recipe.commands[-1])[2]
    subprocess.run([str(venv / "bin" / "python"), "-c", code], check=True)
    [pth] = list(venv.glob("lib/python*/site-packages/r2e_workspace_src.pth"))
    assert pth.read_text() == "/workspace/src\n"
    pth.write_text(f"{repo / 'src'}\n")  # the same file, pointed at this test's workspace
    found = subprocess.run([str(venv / "bin" / "python"), "-c", "import pkg; print(pkg.__file__)"], cwd=tmp_path,
                           capture_output=True, text=True)
    assert found.stdout.strip() == str(repo / "src" / "pkg" / "__init__.py"), found.stderr
