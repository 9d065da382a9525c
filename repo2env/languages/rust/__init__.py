"""Rust: cargo's test targets graded by ``graders/toolchain_verifier.py`` (``rust_runner``: libtest's JSON
events), crates as ``Cargo.lock`` pins them (``recipe``), test files by cargo's places (``files``), and the
toolchain, the registry and the warm target folder recorded of the image for the grader (``record_environment``)."""

from repo2env.core import gitrepo
from repo2env.graders.rust_runner import DEFAULT_TOOLCHAIN, splice_tests
from repo2env.languages import Detection
from repo2env.languages.rust import files, recipe
from repo2env.languages.toolchain import ToolchainLanguage, move_unbuilt


class RustLanguage(ToolchainLanguage):
    """The ``rust`` language plugin (``repo2env.languages.Language``; the grader's parts in ``ToolchainLanguage``)."""

    name = "rust"
    # the egress guard's hosts (environment.egress): crates.io and docs.rs (which shows a crate's source)
    registry_hosts = ("crates.io", "index.crates.io", "static.crates.io", "docs.rs")
    runner_module = "rust_runner"
    manifest_label = "rust"
    test_config_names = files.CONFIG_NAMES
    test_source_suffixes = (".rs",)
    grader_rules = ("Grading puts the repository's test files, Cargo.toml, Cargo.lock, build.rs and cargo's "
                    "configuration back as they were and then runs `cargo test` offline with the Rust toolchain and "
                    "the crates as they are now, so fix the code itself: changes to test files are undone, and "
                    "changing the toolchain or adding or upgrading a crate grades 0.")

    def detect(self, tree: set[str]) -> Detection | None:
        """A tree with ``Cargo.toml`` at its root, unless it is a Python package built from Rust (a
        ``pyproject.toml`` beside Python files: its tests are Python's)."""
        if "Cargo.toml" not in tree:
            return None
        if "pyproject.toml" in tree and any(p.endswith(".py") for p in tree):
            return None
        return Detection(language=self.name, evidence=("Cargo.toml",) + (("Cargo.lock",) if "Cargo.lock" in tree
                                                                         else ()))

    def refine_selection(self, repo_path: str, base: str, head: str, selection, before: list):
        """``selection`` with the FAIL_TO_PASS tests that failed only because their target did not build with the
        new tests (their root file a collection error in every run before the fix) and whose function the test
        patch left as it was moved to PASS_TO_PASS (``go``'s rule: they pass at the base commit)."""
        sources = {}

        def text_of(commit: str) -> str:
            if commit not in sources:
                paths = [p for p in gitrepo.ls_tree(repo_path, commit) if p.endswith(".rs")]
                sources[commit] = "\n".join(gitrepo.show_file(repo_path, commit, p) or "" for p in paths)
            return sources[commit]

        return move_unbuilt(selection, before, lambda path, name: files.same_function(
            text_of(base), text_of(head), name.rsplit("::", 1)[-1]))

    def split_source(self, path: str, base_text: str, head_text: str) -> str | None:
        """For a ``.rs`` source file whose ``#[cfg(test)]`` modules the change edits: the head text with the base
        commit's test modules (the reference's version of the file; ``rust_runner.splice_tests``), else None."""
        if not path.endswith(".rs"):
            return None
        code = splice_tests(head_text, base_text)
        return None if code == head_text else code

    def grader_config(self, repo_path: str, commit: str) -> dict:
        """What the grader's ``config.json`` needs: the ``cargo`` runner."""
        return {"runner": "cargo"}

    def is_test_file(self, path: str) -> bool:
        """``files.is_test_path``."""
        return files.is_test_path(path)

    def is_runnable_test_file(self, path: str, text: str = "") -> bool:
        """``files.is_runnable``."""
        return files.is_runnable(path, text)

    def install_recipe(self, repo_path: str, commit: str, override, plan: dict | None = None):
        """``recipe.detect_recipe`` (one rung: the lockfile leaves nothing to vary)."""
        return recipe.detect_recipe(repo_path, commit, override)

    def toolchain(self) -> dict:
        """Where the image keeps Rust, cargo's home, the warm target folder and a generated lockfile."""
        return dict(DEFAULT_TOOLCHAIN)

    def manifest_roots(self, config: dict) -> tuple[str, ...]:
        """The toolchain, the crates (cargo's ``registry/src`` and ``registry/cache``; its index cache is
        cargo's to rewrite), git dependencies, the warm target folder and a generated lockfile, recorded whole."""
        home = DEFAULT_TOOLCHAIN["cargo_home"]
        return (DEFAULT_TOOLCHAIN["rust"], f"{home}/registry/src", f"{home}/registry/cache", f"{home}/git",
                DEFAULT_TOOLCHAIN["target"], DEFAULT_TOOLCHAIN["lock"])
