"""Python: pytest graded from JUnit XML by ``graders/runtime_verifier.py``, installed with ``uv pip`` as of the
base commit's date (``recipe``), test files by SWE-bench's convention (``files``), plugins and the environment
manifest recorded of the image (``image``)."""

import json

from repo2env import graders
from repo2env.languages import Detection
from repo2env.languages.python import feedback, files, image, recipe


class PythonLanguage:
    """The ``python`` language plugin (``repo2env.languages.Language``)."""

    name = "python"
    # the egress guard's hosts (environment.egress): PyPI
    registry_hosts = ("pypi.org", "pypi.python.org", "files.pythonhosted.org", "test.pypi.org")
    test_config_names = files.TEST_CONFIG_NAMES
    # the grader writes back, as of the base commit, the other files of each test folder that holds a file of the
    # test patch (``tasks.runtime.grading_overlay``): a package's ``__init__.py``, a helper module, a golden file
    # the graded tests read are the tests', not the agent's to change
    restores_test_folders = True

    def test_folder(self, path: str) -> str | None:
        """The test folder ``path`` lies in: its innermost ``test``/``tests``/``testing`` folder
        (``files.TEST_DIRS``; ``pkg/tests`` for ``pkg/tests/unit/test_x.py``, ``numpy/testing/tests`` for
        ``numpy/testing/tests/test_utils.py``, whose ``numpy/testing`` is a package of the project); None outside
        one (``pkg/test_x.py``: its folder is the project's source)."""
        parts = path.split("/")[:-1]
        for i in range(len(parts) - 1, -1, -1):
            if parts[i] in files.TEST_DIRS:
                return "/".join(parts[:i + 1])
        return None

    def detect(self, tree: set[str]) -> Detection | None:
        """A tree with a Python project file at its root, or any ``.py`` file."""
        found = tuple(m for m in files.MARKERS if m in tree)
        if found or any(p.endswith(".py") for p in tree):
            return Detection(language=self.name, evidence=found)
        return None

    def is_test_file(self, path: str) -> bool:
        """SWE-bench's convention (``files.is_test_path``)."""
        return files.is_test_path(path)

    def is_runnable_test_file(self, path: str, text: str = "") -> bool:
        """``test_*.py`` / ``*_test.py``, or any other Python test file (``tests/foo_tests.py``) whose ``text``
        defines tests (pytest collects a file named on its command line whatever its name)."""
        return files.is_python_test_file(path) or files.defines_tests(path, text)

    def install_recipe(self, repo_path: str, commit: str, override, plan: dict | None = None):
        """``recipe.detect_recipe`` (``plan``: one of ``recipe_rungs``, default the first)."""
        return recipe.detect_recipe(repo_path, commit, override, plan)

    def recipe_rungs(self, repo_path: str, commit: str, override) -> tuple[list[dict], str, str]:
        """``(plans, why, key)``: the fallback ladder's plans for ``commit`` in order (``recipe.rungs``; empty when
        no Python 3.8-3.13 is allowed, ``why`` then says why), and the key of the files that decide the recipe
        (``project.ProjectFiles.key``, what the environment memory is keyed by)."""
        plans, why = recipe.rungs(repo_path, commit, override)
        return plans, why, recipe.project_files(str(repo_path), commit).key

    def recipe_feedback(self, repo_path: str, commit: str, plan: dict, skips: dict[str, str],
                        errors: dict[str, str]) -> dict | None:
        """The plan with what the runs say is missing added (``feedback.additions``), or None when nothing can
        be added. ``skips``/``errors``: node id or file -> message, from the runs with the fix."""
        have = {kind: set(names) for kind, names in (plan.get("add") or {}).items()}
        found = feedback.additions(recipe.project_files(str(repo_path), commit),
                                   recipe.test_needs(str(repo_path), commit), skips, errors, have)
        return recipe.merge_plan(plan, found) if found else None

    def install_feedback(self, plan: dict, log: str) -> dict | None:
        """The plan with the Debian packages a failed install's ``log`` says are missing (a compiler, headers;
        ``feedback.system_packages``), or None when it names none the plan lacks."""
        have = set((plan.get("add") or {}).get("apt") or {})
        found = {k: v for k, v in feedback.system_packages(log).items() if k not in have}
        return recipe.merge_plan(plan, {"apt": found}) if found else None

    def plan_from_proposal(self, plan: dict, proposal: dict) -> dict | None:
        """A setup agent's proposal (``{"python", "extras", "groups", "packages", "apt_packages", "env", "why"}``)
        applied to ``plan``; None when it adds nothing valid. Names are checked (requirement syntax, Debian
        package names, 3.8-3.13), never run."""
        return recipe.plan_from_proposal(plan, proposal)

    def setup_files(self, repo_path: str, commit: str) -> dict[str, str]:
        """The files that decide the recipe at ``commit`` (path -> text), for the setup agent to read."""
        return dict(recipe.project_files(str(repo_path), commit).texts)

    def parse_messages(self, text: str) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """``verifier.py run``'s skip reasons, import-error messages and failure details (node id -> text)."""
        data = json.loads(text)
        return (dict(data.get("skip_messages") or {}), dict(data.get("error_messages") or {}),
                dict(data.get("failure_details") or {}))

    def grader_files(self) -> dict[str, bytes]:
        """``verifier.py`` (the runtime grader) and ``env_guard.py`` beside it."""
        return {"verifier.py": graders.source("runtime_verifier"), "env_guard.py": graders.source("env_guard")}

    def test_command(self, tests_dir: str, result_path: str) -> list[str]:
        """``verifier.py run``: put the test files in place, run pytest as the grader does, and write the outcomes
        (parsed from its JUnit XML inside the container, where node ids resolve against the workspace)."""
        return ["python3", f"{tests_dir}/verifier.py", "run", "--tests-dir", tests_dir, "--results", result_path]

    def twin_trial_command(self, tests_dir: str, result_path: str) -> list[str]:
        """``verifier.py twins``: the grader's twin trial (``runtime_verifier.cmd_twins``), run with the
        reference solution in place; its JSON at ``result_path``."""
        return ["python3", f"{tests_dir}/verifier.py", "twins", "--tests-dir", tests_dir, "--results", result_path]

    def parse_results(self, text: str) -> tuple[dict[str, str], list[str], dict[str, str]]:
        """``verifier.py run``'s JSON: ``(outcomes, collection_errors, collection_messages)``. Raises
        ``ValueError`` for anything else."""
        data = json.loads(text)
        return dict(data["outcomes"]), list(data["collection_errors"]), dict(data.get("collection_messages", {}))

    def record_environment(self, client, image_ref: str, stage, config: dict, report) -> None:
        """Pin the installed pytest plugins in ``config``, write ``tests/python_env.json``, and record in
        ``config`` the interpreter's absolute path (``python``, what test.sh runs) and how long the environment
        check took (``env_check_seconds``, part of the grader's time budget); rewrites ``tests/config.json``."""
        report("python environment manifest")
        taken, plugins = image.image_facts(client, image_ref, stage.root)  # one container for both
        if plugins is not None:
            config["pytest_plugins"] = plugins
        snapshot = self._write_manifest(stage, taken)
        if snapshot is not None:
            config["python"] = snapshot["executable"]
            config["env_check_seconds"] = snapshot["seconds"]
        stage.write_text("tests/config.json", json.dumps(config, indent=1) + "\n")

    def record_env_manifest(self, client, image_ref: str, stage, report) -> dict | None:
        """Write ``tests/python_env.json`` into the ``BundleStage``: the environment the grader checks against
        (``env_guard``); equivalence tasks record only this. Returns ``{"executable", "seconds"}`` (the
        interpreter's real path and the snapshot's duration, rounded up to whole seconds), or None when no
        snapshot could be taken."""
        report("python environment manifest")
        return self._write_manifest(stage, image.python_env_snapshot(client, image_ref, stage.root))

    @staticmethod
    def _write_manifest(stage, taken: tuple[str, int] | None) -> dict | None:
        if taken is None:
            return None
        text, seconds = taken
        stage.write_text("tests/python_env.json", text)
        return {"executable": json.loads(text)["executable"], "seconds": seconds}
