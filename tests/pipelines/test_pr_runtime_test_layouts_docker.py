"""Test layouts that used to lose tasks, in one fixture repository (real git, real Docker):

* PR #1: a ``tests/pytest.ini`` (so pytest's own rootdir would be ``tests/``) that lists ``required_plugins``,
  an inherited test method (``TestChild(Base)``, ``Base`` in ``tests/base.py``) and a test file not named
  ``test_*.py`` (``tests/size_checks.py``): every F2P id is re-selectable and the oracle scores 1.0;
* PR #2: the test patch adds a ``conftest.py`` that imports a name the fix adds, so pytest stops before collecting
  anything before the fix: its tests count as failing (SWE-bench's rule), not as a failed run;
* PR #3: a test module that needs a package the environment lacks errors in every run: ``test_environment_broken``
  with the import error, not ``no_fail_to_pass``;
* PR #4: a test runs the project's own command (a console script, ``[project.scripts]``) as a subprocess: it is
  found at grading as at generation (glom-280 and glom-277 were rejected ``oracle_failed``: test.sh's ``PATH``
  lacked the folder of the console scripts).
"""

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.core.options import GenerateOptions
from repo2env.run.generate import generate
from tests.helpers.repos import commit_files, git, setuptools_pyproject

pytestmark = pytest.mark.docker

SIZES_V1 = "def parse(text):\n    return int(text.rstrip('B'))\n"
SIZES_V2 = ("UNITS = {'KB': 1024, 'MB': 1024 ** 2}\n\n\ndef parse(text):\n    for unit, factor in UNITS.items():\n"
            "        if text.endswith(unit):\n            return int(text[:-len(unit)]) * factor\n"
            "    return int(text.rstrip('B'))\n")
BASE = "from sizes import parse\n\n\nclass Base:\n    def test_kilobytes(self):\n        assert parse('2KB') == 2048\n"
CHILD = "from tests.base import Base\n\n\nclass TestChild(Base):\n    pass\n"
CHECKS = "from sizes import parse\n\n\ndef test_megabytes():\n    assert parse('1MB') == 1048576\n\n\n" \
         "def test_bytes():\n    assert parse('10B') == 10\n"
CONFTEST = "import pytest\n\nfrom sizes import UNITS, UNITS_VERSION\n\n\n@pytest.fixture\ndef units():\n" \
           "    assert UNITS_VERSION == 2\n    return UNITS\n"
UNITS_TEST = "def test_units_are_powers_of_1024(units):\n    assert all(v % 1024 == 0 for v in units.values())\n"
HALF = "def half(x):\n    return x // 2\n"
HALF_FIXED = "def half(x):\n    return x / 2\n"
CLI_STUB = "import sys\n\n\ndef main():\n    print(sys.argv[1])\n"
CLI_FIXED = "import sys\n\nfrom sizes import parse\n\n\ndef main():\n    print(parse(sys.argv[1]))\n"
CLI_TEST = "import subprocess\n\n\ndef _run(*args):\n    return subprocess.run(['sizes', *args], " \
           "capture_output=True, text=True, check=True).stdout\n\n\ndef test_command_prints_bytes():\n" \
           "    assert _run('2KB') == '2048\\n'\n"
SCRIPTS = '[project.scripts]\nsizes = "sizes_cli:main"\n\n'  # the project's own command
NEEDS_MISSING = "import r2e_package_nobody_installed\n\nfrom sizes import half\n\n\ndef test_half():\n" \
                "    assert half(3) == 1.5\n"


def _merge(repo, number, branch, title, body, files, day):
    git(repo, "checkout", "-q", "-b", branch)
    commit_files(repo, title, files, date=f"2025-02-{day:02d}T00:00:00Z")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", branch, "-m", f"Merge pull request #{number} from a/{branch}\n\n{body}",
        env={"GIT_AUTHOR_DATE": f"2025-02-{day:02d}T12:00:00Z", "GIT_COMMITTER_DATE": f"2025-02-{day:02d}T12:00:00Z"})


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    repo = tmp_path_factory.mktemp("layouts") / "sizes"
    repo.mkdir()
    git(repo, "init", "-q", "--initial-branch=main")
    commit_files(repo, "start", {
        "pyproject.toml": setuptools_pyproject("sizes", tables=SCRIPTS).replace(
            'packages = ["sizes"]', 'py-modules = ["sizes", "sizes_cli"]'),
        "sizes.py": SIZES_V1, "sizes_cli.py": CLI_STUB, "tests/__init__.py": "",
        "tests/test_plain.py": "from sizes import parse\n\n\n"
        "def test_plain_number():\n    assert parse('5') == 5\n",
        "tests/pytest.ini": "[pytest]\nrequired_plugins = r2e-plugin-nobody-installs\n"}, date="2025-02-01T00:00:00Z")
    _merge(repo, 1, "units", "Parse KB and MB", "parse() rejected sizes with a KB or MB unit: parse('2KB') raised "
           "ValueError instead of returning the size in bytes.", {
               "sizes.py": SIZES_V2, "tests/base.py": BASE, "tests/test_child.py": CHILD,
               "tests/size_checks.py": CHECKS}, 2)
    _merge(repo, 2, "conftest", "Test the unit table", "The unit table had no test that its factors are powers of "
           "1024; add a fixture exposing it.", {"tests/conftest.py": CONFTEST, "tests/test_units.py": UNITS_TEST,
                                                "sizes.py": SIZES_V2 + "\n\nUNITS_VERSION = 2\n"}, 3)
    commit_files(repo, "add half", {"sizes.py": SIZES_V2 + "\n\nUNITS_VERSION = 2\n\n\n" + HALF},
                 date="2025-02-04T00:00:00Z")
    _merge(repo, 3, "half", "half() keeps fractions", "half(3) returned 1, dropping the fraction; it must return "
           "1.5.", {"sizes.py": SIZES_V2 + "\n\nUNITS_VERSION = 2\n\n\n" + HALF_FIXED,
                    "tests/test_half.py": NEEDS_MISSING}, 5)
    _merge(repo, 4, "cli", "The sizes command prints bytes", "`sizes 2KB` printed `2KB` back; it must print the size "
           "in bytes, `2048`.", {"sizes_cli.py": CLI_FIXED, "tests/test_cli.py": CLI_TEST}, 6)
    out = tmp_path_factory.mktemp("layouts-out") / "tasks"
    return out, generate("pr_runtime", str(repo), GenerateOptions(out=out, probes=False))


def _meta(out, task):
    return read_task_toml(out / task)["metadata"]["repo2env"]


def test_ids_relative_to_the_workspace_inherited_methods_and_any_file_name(layouts):
    out, summary = layouts
    assert "local__sizes-1" in summary.verified, (summary.skipped, summary.rejected, summary.errors)
    meta = _meta(out, "local__sizes-1")
    assert meta["pr_runtime"]["fail_to_pass"] == ["tests/size_checks.py::test_megabytes",
                                                  "tests/test_child.py::TestChild::test_kilobytes"]
    assert (meta["evaluation"]["oracle_reward"], meta["evaluation"]["nop_reward"]) == (1.0, 0.0)


def test_a_conftest_that_imports_the_fix_makes_its_tests_fail_before(layouts):
    out, summary = layouts
    assert "local__sizes-2" in summary.verified, (summary.skipped, summary.rejected, summary.errors)
    assert _meta(out, "local__sizes-2")["pr_runtime"]["fail_to_pass"] == [
        "tests/test_units.py::test_units_are_powers_of_1024"]


def test_a_module_that_never_imports_is_a_broken_environment(layouts):
    out, summary = layouts
    ledger = [line for line in (out.parent / "tasks.ledger.jsonl").read_text().splitlines() if '"pr#3"' in line]
    assert '"reason":"test_environment_broken"' in ledger[-1]
    assert "tests/test_half.py" in ledger[-1] and "r2e_package_nobody_installed" in ledger[-1]


def test_a_test_that_runs_the_projects_command_passes_at_grading(layouts):
    out, summary = layouts
    assert "local__sizes-4" in summary.verified, (summary.skipped, summary.rejected, summary.errors)
    meta = _meta(out, "local__sizes-4")
    assert meta["pr_runtime"]["fail_to_pass"] == ["tests/test_cli.py::test_command_prints_bytes"]
    assert (meta["evaluation"]["oracle_reward"], meta["evaluation"]["nop_reward"]) == (1.0, 0.0)
