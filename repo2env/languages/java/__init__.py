"""Java: Maven's ``test`` phase graded by ``graders/toolchain_verifier.py`` (``java_runner``: Surefire's XML reports
checked against Maven's own totals), plugins and dependencies as the POMs name them (``recipe``), test files by
Maven's layout (``files``), and the JDK, Maven and the local repository recorded of the image for the grader
(``record_environment``). Gradle builds are recognised and skipped: Gradle fetches its own distribution from a
host this machine does not reach, and its wrapper is the only build most such projects support."""

from repo2env.core import gitrepo
from repo2env.graders.java_runner import DEFAULT_TOOLCHAIN
from repo2env.languages import Detection
from repo2env.languages.java import files, recipe
from repo2env.languages.toolchain import ToolchainLanguage, move_unbuilt

GRADLE_FILES = ("build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts")


class JavaLanguage(ToolchainLanguage):
    """The ``java`` language plugin (``repo2env.languages.Language``; the grader's parts in ``ToolchainLanguage``)."""

    name = "java"
    # the egress guard's hosts (environment.egress): Maven Central and JitPack
    registry_hosts = ("repo.maven.apache.org", "repo1.maven.org", "central.sonatype.com", "search.maven.org",
                      "jitpack.io")
    runner_module = "java_runner"
    manifest_label = "java"
    test_config_names = files.CONFIG_NAMES
    test_source_suffixes = (".java",)
    grader_rules = ("Grading puts the repository's test files, pom.xml and Maven's and JUnit's configuration back "
                    "as they were and then runs `mvn test` offline with the JDK, Maven and the local repository as "
                    "they are now, so fix the code itself: changes to test files are undone, and changing the JDK or "
                    "adding or upgrading a dependency grades 0.")

    def detect(self, tree: set[str]) -> Detection | None:
        """A tree with ``pom.xml`` at its root (Maven); a Gradle build is claimed with ``supported=False``. A tree
        that also holds Python files is left to Python (a Python project with a Java part)."""
        if any(p.endswith(".py") for p in tree) and "pom.xml" not in tree:
            return None
        if "pom.xml" in tree:
            if any(p.endswith(".py") for p in tree) and not any(p.endswith(".java") for p in tree):
                return None
            return Detection(language=self.name, evidence=("pom.xml",))
        found = tuple(name for name in GRADLE_FILES if name in tree)
        if not found:
            return None
        return Detection(language=self.name, supported=False, evidence=found,
                         reason=f"a Java project built with Gradle ({found[0]}): Gradle downloads its own "
                                "distribution, which cannot be fetched here; Maven projects are supported")

    def refine_selection(self, repo_path: str, base: str, head: str, selection, before: list):
        """``selection`` with the FAIL_TO_PASS tests that failed only because their module's test sources did not
        compile with the new tests (their file a collection error in every run before the fix) and whose method
        the test patch left as it was moved to PASS_TO_PASS (``go``'s rule: they pass at the base commit)."""
        def unchanged(path: str, name: str) -> bool:
            method = name.rsplit("::", 1)[-1].split("(", 1)[0].split("[", 1)[0]
            return files.same_method(gitrepo.show_file(repo_path, base, path) or "",
                                     gitrepo.show_file(repo_path, head, path) or "", method)

        return move_unbuilt(selection, before, unchanged)

    def grader_config(self, repo_path: str, commit: str) -> dict:
        """What the grader's ``config.json`` needs: the ``maven`` runner."""
        return {"runner": "maven"}

    def is_test_file(self, path: str) -> bool:
        """``files.is_test_path``."""
        return files.is_test_path(path)

    def is_runnable_test_file(self, path: str, text: str = "") -> bool:
        """``files.is_runnable``."""
        return files.is_runnable(path, text)

    def install_recipe(self, repo_path: str, commit: str, override, plan: dict | None = None):
        """``recipe.detect_recipe`` (one rung: the POMs name every version)."""
        return recipe.detect_recipe(repo_path, commit, override)

    def toolchain(self) -> dict:
        """Where the image keeps the JDK, Maven and the local repository (``config["toolchain"]``)."""
        return dict(DEFAULT_TOOLCHAIN)

    def manifest_roots(self, config: dict) -> tuple[str, ...]:
        """The JDK, Maven and the local repository, recorded whole."""
        return DEFAULT_TOOLCHAIN["java_home"], DEFAULT_TOOLCHAIN["maven_home"], DEFAULT_TOOLCHAIN["m2"]
