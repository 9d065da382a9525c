"""JavaScript/TypeScript: Jest, Vitest, Mocha or Node.js's own ``node --test``, graded by
``graders/toolchain_verifier.py`` (``js_runner``: the runners' own JSON reports, node:test's events), installed
with npm as the lockfile pins it or as of the base commit's date (``recipe``), test files by the runners' default
places (``files``), and Node.js and ``node_modules`` recorded of the image for the grader
(``record_environment``)."""

from repo2env.core import gitrepo
from repo2env.graders.js_runner import CACHE_DIRS, DEFAULT_TOOLCHAIN
from repo2env.languages import Detection
from repo2env.languages.javascript import files, recipe
from repo2env.languages.toolchain import ToolchainLanguage


class JavaScriptLanguage(ToolchainLanguage):
    """The ``javascript`` language plugin (``repo2env.languages.Language``); TypeScript is the same plugin."""

    name = "javascript"
    # the egress guard's hosts (environment.egress): the npm registry and the CDNs that serve its packages
    registry_hosts = ("registry.npmjs.org", "registry.yarnpkg.com", "www.npmjs.com", "unpkg.com", "cdn.jsdelivr.net",
                      "esm.sh")
    runner_module = "js_runner"
    manifest_label = "node"
    test_config_names = files.CONFIG_NAMES
    test_source_suffixes = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts")
    grader_rules = ("Grading puts the repository's test files, package.json and the test runner's configuration "
                    "back as they were and then runs the tests with Node.js and node_modules as they are now, so "
                    "fix the code itself: changes to test files are undone, and installing, upgrading or removing "
                    "a package grades 0.")

    def detect(self, tree: set[str]) -> Detection | None:
        """A tree with ``package.json`` at its root (``detect_commit`` reads it)."""
        return Detection(language=self.name, evidence=("package.json",)) if "package.json" in tree else None

    def detect_commit(self, repo_path: str, commit: str, tree: set[str]) -> Detection | None:
        """``detect``, with the root ``package.json`` of ``commit`` read (``files.read_project``): recognised but
        unsupported for Yarn Berry, pnpm-only trees and a package.json without a supported runner (left to the
        next plugin when the tree has Python files: a Python project's front-end or docs tooling)."""
        if "package.json" not in tree:
            return None
        project = self.project(repo_path, commit, tree)
        if project.runner is None and any(p.endswith(".py") for p in tree):
            return None  # a package.json for a Python project's assets or docs: Python's tree
        lockfiles = tuple(p for p in ("package-lock.json", "yarn.lock", "pnpm-lock.yaml") if p in tree)
        return Detection(language=self.name, supported=project.unsupported is None, reason=project.unsupported,
                         evidence=("package.json",) + lockfiles)

    def project(self, repo_path: str, commit: str, tree: set[str] | None = None):
        """``files.read_project`` of ``commit``."""
        tree = tree if tree is not None else set(gitrepo.ls_tree(repo_path, commit))
        return files.read_project(gitrepo.show_file(repo_path, commit, "package.json") or "", tree)

    def grader_config(self, repo_path: str, commit: str) -> dict:
        """What the grader's ``config.json`` needs of ``commit``: the ``runner`` package.json asks for and, for
        ``node --test``, the Node.js options its test script gives (``runner_flags``)."""
        project = self.project(repo_path, commit)
        return {"runner": project.runner, **({"runner_flags": list(project.flags)} if project.flags else {})}

    def is_test_file(self, path: str) -> bool:
        """``files.is_test_path``."""
        return files.is_test_path(path)

    def is_runnable_test_file(self, path: str, text: str = "") -> bool:
        """``files.is_runnable``."""
        return files.is_runnable(path, text)

    def install_recipe(self, repo_path: str, commit: str, override, plan: dict | None = None):
        """``recipe.detect_recipe`` (one rung)."""
        return recipe.detect_recipe(repo_path, commit, override, self.project(repo_path, commit))

    def toolchain(self) -> dict:
        """Where the image keeps Node.js (``config["toolchain"]``)."""
        return dict(DEFAULT_TOOLCHAIN)

    def manifest_roots(self, config: dict) -> tuple[str, ...]:
        """Node.js and ``node_modules``, recorded whole but for the runners' caches (``js_runner.CACHE_DIRS``)."""
        return (DEFAULT_TOOLCHAIN["node"], f"{config['workspace']}/node_modules") + tuple(
            f"--skip={d}" for d in CACHE_DIRS)
