"""Why a build failed, in one line (repo2env/environment/images.py ``build_cause``), from the log shapes uv and
Docker write; and the environment memory (repo2env/environment/memory.py) in a real SQLite file."""

import pytest

from repo2env.environment.images import build_cause
from repo2env.environment.memory import EnvMemory

UV_BACKEND = """Step 5/6 : RUN uv pip install --system -e .
 ---> Running in 1f2e3d4c
Using Python 3.12.1 environment at: /usr/local
error: The build backend returned an error
  cause: Call to `setuptools.build_meta:__legacy__.get_requires_for_build_editable` failed (exit status: 1)

         [stderr]
         Traceback (most recent call last):
         ModuleNotFoundError: No module named 'numpy'

         hint: This usually indicates a problem with the package or the build environment.
\x1b[0mThe command '/bin/sh -c uv pip install --system -e .' returned a non-zero code: 1
"""
UV_RESOLVER = """  × No solution found when resolving dependencies:
  ╰─▶ Because only numpy<=1.21.0 is available and you require numpy>=1.26, we can conclude that your
      requirements are unsatisfiable.
The command '/bin/sh -c uv pip install' returned a non-zero code: 1
"""


@pytest.mark.parametrize("log, cause", [
    (UV_BACKEND, "error: The build backend returned an error; ModuleNotFoundError: No module named 'numpy' (exit 1)"),
    (UV_RESOLVER, "No solution found when resolving dependencies:; Because only numpy<=1.21.0 is available and you "
                  "require numpy>=1.26, we can conclude that your requirements are unsatisfiable. (exit 1)"),
    ("error: The build backend returned an error\n  cause: Call to `x.get_requires_for_build_editable` failed\n\n"
     "         [stderr]\n         gated: set GATED_BUILD=1 to build this package\n",
     "error: The build backend returned an error; gated: set GATED_BUILD=1 to build this package"),
    ("error: No solution found when resolving dependencies\n  cause: Because pandas==0.20.3 has invalid metadata\n"
     "  hint: Metadata for pandas==0.20.3 is invalid\n      ^^^^^^^\n",
     "error: No solution found when resolving dependencies; Because pandas==0.20.3 has invalid metadata"),
    ("[INFO] BUILD FAILURE\n[ERROR] Failed to execute goal org.apache.rat:apache-rat-plugin:0.18:check (rat-check) on "
     "project x: The plugin org.apache.rat:apache-rat-plugin:0.18 requires Maven version 3.9 -> [Help 1]\n[ERROR] \n"
     "[ERROR] [Help 1] http://cwiki.apache.org/confluence/display/MAVEN/PluginIncompatibleException\n"
     "The command '/bin/sh -c mvn test' returned a non-zero code: 1\n",
     "Failed to execute goal org.apache.rat:apache-rat-plugin:0.18:check (rat-check) on project x: The plugin "
     "org.apache.rat:apache-rat-plugin:0.18 requires Maven version 3.9 -> [Help 1] (exit 1)"),
    ("make: *** [all] Error 2\nbroken install\nRemoving intermediate container 9f\n"
     "The command '/bin/sh -c make' returned a non-zero code: 3\n", "broken install (exit 3)"),
])
def test_the_cause_of_a_failed_build_in_one_line(log, cause):
    assert build_cause(log) == cause


def test_memory_recalls_the_same_files_first_then_the_nearest_earlier_commit(tmp_path):
    memory = EnvMemory(tmp_path / "state.sqlite")
    assert memory.recall("o/r", "python", "k1", "2024-01-01T00:00:00Z") is None
    memory.remember("o/r", "python", "k1", "a" * 40, "2020-01-01T00:00:00Z", {"python": "3.8"})
    memory.remember("o/r", "python", "k2", "b" * 40, "2022-01-01T00:00:00Z", {"python": "3.10"})
    memory.remember("o/other", "python", "k3", "c" * 40, "2023-01-01T00:00:00Z", {"python": "3.11"})
    assert memory.recall("o/r", "python", "k1", "2024-01-01T00:00:00Z") == ({"python": "3.8"},
                                                                             "same recipe files as aaaaaaaaaaaa")
    assert memory.recall("o/r", "python", "new", "2021-06-01T00:00:00Z") == (
        {"python": "3.8"}, "nearest earlier base commit aaaaaaaaaaaa")
    assert memory.recall("o/r", "python", "new", "2024-06-01T00:00:00Z")[0] == {"python": "3.10"}
    assert memory.recall("o/r", "python", "new", "2019-06-01T00:00:00Z") is None  # nothing earlier: no guess
    memory.remember("o/r", "python", "k1", "d" * 40, "2020-02-01T00:00:00Z", {"python": "3.9"})  # replaced
    assert [e["plan"] for e in memory.entries("o/r")] == [{"python": "3.9"}, {"python": "3.10"}]
    (tmp_path / "broken.sqlite").write_text("not a database")
    assert EnvMemory(tmp_path / "broken.sqlite").recall("o/r", "python", "k1", "2024-01-01T00:00:00Z") is None


def test_the_resolvers_cause_line_beats_the_hints_caret():
    log = ("Using Python 3.8.18 environment at: /usr/local\n  × No solution found when resolving dependencies:\n"
           "  ╰─▶ Because pandas==0.20.3 has invalid metadata and you require pandas==0.20.3, we can conclude that\n"
           "      your requirements are unsatisfiable.\n      hint: Metadata for pandas==0.20.3 is invalid:\n"
           "        pytz (>=2011k)\n             ^^^^^^^\nThe command 'x' returned a non-zero code: 1\n")
    assert build_cause(log) == ("No solution found when resolving dependencies:; Because pandas==0.20.3 has invalid "
                                "metadata and you require pandas==0.20.3, we can conclude that your requirements are "
                                "unsatisfiable. (exit 1)")


def test_npm_says_why_not_where_its_log_is():
    log = ("Step 5/7 : RUN npm install --before=2017-01-01T00:00:00Z\nnpm error code ENOVERSIONS\n"
           "npm error No versions available for ansi-bold\nnpm error A complete log of this run can be found in: "
           "/root/.npm/_logs/2026-x-debug-0.log\nThe command '/bin/sh -c npm install' returned a non-zero code: 1\n")
    assert build_cause(log) == "code ENOVERSIONS; No versions available for ansi-bold (exit 1)"


@pytest.mark.docker
def test_a_bundle_whose_task_image_is_gone_says_so(docker_client, tmp_path):
    # without the check Docker looks for local/... on Docker Hub and answers "no such host"
    from repo2env.core.errors import BuildError
    from repo2env.environment.images import environment_image

    (tmp_path / "environment").mkdir()
    (tmp_path / "environment" / "Dockerfile").write_text("FROM local/r2e-env/local__gone:0123456789ab\n")
    with pytest.raises(BuildError, match=r"task image local/r2e-env/local__gone:0123456789ab is not on this Docker "
                                         r"engine.*--force"):
        environment_image(docker_client, tmp_path / "environment", "local__gone-1")


def test_a_build_log_is_kept_without_colour_codes():
    """humanize's image logs had a colour code around almost every character (``[91m+[0m[91m [0m...``)."""
    from repo2env.environment.images import plain_log
    chunks = [{"stream": "\x1b[91m+\x1b[0m\x1b[91m \x1b[0m\x1b[91mfreezegun==1.2.2\x1b[0m\n"},
              {"error": "\x1b[1;31merror\x1b[0m: No solution found\n"}, {"aux": {"ID": "sha256:1"}}]
    assert plain_log(chunks) == "+ freezegun==1.2.2\nerror: No solution found\n"
