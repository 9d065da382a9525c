"""Go: ``go test -json`` graded by ``graders/toolchain_verifier.py``, modules as ``go.mod``/``go.sum`` pin them
(``recipe``), test files by the go command's rules (``files``), and the toolchain, module cache and warm build
cache recorded of the image for the grader (``record_environment``)."""

import json

from repo2env import graders
from repo2env.environment.manifest import env_snapshot
from repo2env.graders.go_runner import DEFAULT_TOOLCHAIN
from repo2env.instructions.observed.test_output import observed_from_output
from repo2env.languages import Detection
from repo2env.languages.go import files, recipe


class GoLanguage:
    """The ``go`` language plugin (``repo2env.languages.Language``)."""

    name = "go"
    test_config_names = files.GO_CONFIG_NAMES
    test_source_suffixes = ("_test.go",)  # what the observed behaviour reads of the test files
    grader_rules = ("Grading puts the repository's test files, go.mod and go.sum back as they were and then runs "
                    "`go test` with the Go toolchain and module cache as they are now, so fix the code itself: "
                    "changes to test files are undone, and changing the toolchain or the module cache grades 0.")

    def detect(self, tree: set[str]) -> Detection | None:
        """A tree with ``go.mod`` at its root. Only a module at the root is supported: a tree whose only
        ``go.mod`` files are in subfolders is claimed with ``supported=False``."""
        if "go.mod" in tree:
            return Detection(language=self.name, evidence=("go.mod",))
        nested = sorted(p for p in tree if p.endswith("/go.mod"))
        if nested and not any(p.endswith(".py") for p in tree):
            return Detection(language=self.name, supported=False, evidence=tuple(nested[:3]),
                             reason=f"Go modules only below the root ({nested[0]}): one module at the root is "
                                    "supported")
        return None

    def observed_behaviour(self, evidence) -> list[str]:
        """What the FAIL_TO_PASS tests saw before the fix, from Go's test output conventions
        (``instructions.observed.test_output``)."""
        return observed_from_output(evidence)

    def grader_config(self, repo_path: str, commit: str) -> dict:
        """What the grader's ``config.json`` needs: the ``go`` runner."""
        return {"runner": "go"}

    def is_test_file(self, path: str) -> bool:
        """``*_test.go`` and ``testdata/`` (``files.is_test_path``)."""
        return files.is_test_path(path)

    def is_runnable_test_file(self, path: str, text: str = "") -> bool:
        """A ``_test.go`` file that declares a test (``files.is_go_test_file``)."""
        return files.is_go_test_file(path, text)

    def install_recipe(self, repo_path: str, commit: str, override, plan: dict | None = None):
        """``recipe.detect_recipe`` (one rung: Go's minimal version selection leaves nothing to vary)."""
        return recipe.detect_recipe(repo_path, commit, override)

    def grader_files(self) -> dict[str, bytes]:
        """``verifier.py`` (``toolchain_verifier``), ``go_runner.py`` (go test's part), ``runtime_verifier.py``
        (the shared parts) and ``env_guard.py``."""
        return {"verifier.py": graders.source("toolchain_verifier"), "go_runner.py": graders.source("go_runner"),
                "runtime_verifier.py": graders.source("runtime_verifier"), "env_guard.py": graders.source("env_guard")}

    def test_command(self, tests_dir: str, result_path: str) -> list[str]:
        """``verifier.py run``: put the test files in place, run ``go test -json`` as the grader does, write the
        outcomes (node ids resolved in the container, where the test files are)."""
        return ["python3", f"{tests_dir}/verifier.py", "run", "--tests-dir", tests_dir, "--results", result_path]

    def parse_results(self, text: str) -> tuple[dict[str, str], list[str], dict[str, str]]:
        """``verifier.py run``'s JSON: ``(outcomes, collection_errors, collection_messages)``. Raises
        ``ValueError`` for anything else."""
        data = json.loads(text)
        return dict(data["outcomes"]), list(data["collection_errors"]), dict(data.get("collection_messages", {}))

    def parse_messages(self, text: str) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
        """Skip reasons, (no) import errors and failure output (node id -> text) of ``verifier.py run``."""
        data = json.loads(text)
        return (dict(data.get("skip_messages") or {}), dict(data.get("error_messages") or {}),
                dict(data.get("failure_details") or {}))

    def record_environment(self, client, image_ref: str, stage, config: dict, report) -> None:
        """Write ``tests/python_env.json`` (the grader's Python plus, whole, ``GOROOT``, the module cache and the
        warm build cache) and record in ``config`` the toolchain's folders, the interpreter and the
        check's seconds; rewrites ``tests/config.json``."""
        report("go environment manifest")
        roots = (DEFAULT_TOOLCHAIN["goroot"], DEFAULT_TOOLCHAIN["gopath"], DEFAULT_TOOLCHAIN["gocache"])
        taken = env_snapshot(client, image_ref, stage.root, roots)
        config["toolchain"] = dict(DEFAULT_TOOLCHAIN)
        if taken is not None:
            text, seconds = taken
            stage.write_text("tests/python_env.json", text)
            config["python"] = json.loads(text)["executable"]
            config["env_check_seconds"] = seconds
        stage.write_text("tests/config.json", json.dumps(config, indent=1) + "\n")
