"""Python: pytest graded from JUnit XML by ``graders/runtime_verifier.py``, installed with ``uv pip`` as of the
base commit's date (``recipe``), test files by SWE-bench's convention (``files``), plugins and the environment
manifest recorded of the image (``image``)."""

import json

from repo2env import graders
from repo2env.graders import runtime_verifier
from repo2env.languages import Detection
from repo2env.languages.python import files, image, recipe


class PythonLanguage:
    """The ``python`` language plugin (``repo2env.languages.Language``)."""

    name = "python"
    test_config_names = files.TEST_CONFIG_NAMES

    def detect(self, tree: set[str]) -> Detection | None:
        """A tree with a Python project file at its root, or any ``.py`` file."""
        found = tuple(m for m in files.MARKERS if m in tree)
        if found or any(p.endswith(".py") for p in tree):
            return Detection(language=self.name, evidence=found)
        return None

    def is_test_file(self, path: str) -> bool:
        """SWE-bench's convention (``files.is_test_path``)."""
        return files.is_test_path(path)

    def is_runnable_test_file(self, path: str) -> bool:
        """``test_*.py`` / ``*_test.py``."""
        return files.is_python_test_file(path)

    def install_recipe(self, repo_path: str, commit: str, override):
        """``recipe.detect_recipe``."""
        return recipe.detect_recipe(repo_path, commit, override)

    def grader_files(self) -> dict[str, bytes]:
        """``verifier.py`` (the runtime grader) and ``env_guard.py`` beside it."""
        return {"verifier.py": graders.source("runtime_verifier"), "env_guard.py": graders.source("env_guard")}

    def test_command(self, tests_dir: str, result_path: str) -> list[str]:
        """``verifier.py run``: reset and patch the test files, then pytest with ``--junitxml``."""
        return ["python3", f"{tests_dir}/verifier.py", "run", "--tests-dir", tests_dir, "--junit", result_path]

    def parse_results(self, text: str) -> tuple[dict[str, str], list[str]]:
        """JUnit XML (``runtime_verifier.parse_junit``)."""
        return runtime_verifier.parse_junit(text)

    def record_environment(self, client, image_ref: str, stage, config: dict, report) -> None:
        """Pin the installed pytest plugins in ``config`` (rewriting ``tests/config.json``) and write
        ``tests/python_env.json``."""
        plugins = image.pinned_plugins(client, image_ref, stage.root)
        if plugins is not None:
            config["pytest_plugins"] = plugins
            stage.write_text("tests/config.json", json.dumps(config, indent=1) + "\n")
        self.record_env_manifest(client, image_ref, stage, report)

    def record_env_manifest(self, client, image_ref: str, stage, report) -> None:
        """Write ``tests/python_env.json`` into the ``BundleStage``: the environment the grader checks against
        (``env_guard``); equivalence tasks record only this."""
        report("python environment manifest")
        snapshot = image.python_env_snapshot(client, image_ref, stage.root)
        if snapshot is not None:
            stage.write_text("tests/python_env.json", snapshot)
