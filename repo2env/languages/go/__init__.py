"""Go: ``go test -json`` graded by ``graders/toolchain_verifier.py``, modules as ``go.mod``/``go.sum`` pin them
(``recipe``), test files by the go command's rules (``files``), and the toolchain, module cache and warm build
cache recorded of the image for the grader (``record_environment``)."""

from repo2env.core import gitrepo
from repo2env.graders.go_runner import DEFAULT_TOOLCHAIN
from repo2env.languages import Detection
from repo2env.languages.go import files, recipe
from repo2env.languages.toolchain import ToolchainLanguage, move_unbuilt


class GoLanguage(ToolchainLanguage):
    """The ``go`` language plugin (``repo2env.languages.Language``; the grader's parts in ``ToolchainLanguage``)."""

    name = "go"
    # the egress guard's hosts (environment.egress): the Go module proxies and the module index
    registry_hosts = ("proxy.golang.org", "sum.golang.org", "pkg.go.dev", "goproxy.io", "goproxy.cn")
    runner_module = "go_runner"
    manifest_label = "go"
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

    def refine_selection(self, repo_path: str, base: str, head: str, selection, before: list):
        """``selection`` with the FAIL_TO_PASS tests that failed only because their package did not build with
        the new tests (their file a collection error in every run before the fix) and that the test patch left
        as they were (the same function at the base commit) moved to PASS_TO_PASS: they pass at the base
        commit, and the fix must keep them passing. Subtests follow their test."""
        return move_unbuilt(selection, before, lambda path, name: files.same_function(
            gitrepo.show_file(repo_path, base, path) or "", gitrepo.show_file(repo_path, head, path) or "",
            name.split("/", 1)[0]))

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

    def toolchain(self) -> dict:
        """Where the image keeps Go, the module cache and the warm build cache (``config["toolchain"]``)."""
        return dict(DEFAULT_TOOLCHAIN)

    def manifest_roots(self, config: dict) -> tuple[str, ...]:
        """``GOROOT``, the module cache and the warm build cache, recorded whole."""
        return DEFAULT_TOOLCHAIN["goroot"], DEFAULT_TOOLCHAIN["gopath"], DEFAULT_TOOLCHAIN["gocache"]
