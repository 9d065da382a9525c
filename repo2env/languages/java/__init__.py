"""Java: recognised (Maven's ``pom.xml``, Gradle's build files) so that such a repository is skipped with its
reason (``language_unsupported``) instead of being read as Python; mining Java is not built yet."""

from repo2env.languages import Detection

BUILD_FILES = ("pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts")


class JavaLanguage:
    """The ``java`` language plugin: detection only (module docstring)."""

    name = "java"
    test_config_names: tuple[str, ...] = ()

    def detect(self, tree: set[str]) -> Detection | None:
        """A tree with a Maven or Gradle build file at its root, unless it also holds Python files (a Python
        project with a Java part is Python's): claimed with ``supported=False``."""
        found = tuple(name for name in BUILD_FILES if name in tree)
        if not found or any(p.endswith(".py") for p in tree):
            return None
        tool = "Maven" if "pom.xml" in found else "Gradle"
        return Detection(language=self.name, supported=False, evidence=found,
                         reason=f"a Java project built with {tool} ({found[0]}): Java is not supported yet")

    def is_test_file(self, path: str) -> bool:
        """Maven's and Gradle's test sources (``src/test/``)."""
        return "/src/test/" in f"/{path}"

    def is_runnable_test_file(self, path: str, text: str = "") -> bool:
        """Never: no Java task is built."""
        return False

    def install_recipe(self, repo_path: str, commit: str, override, plan: dict | None = None):
        raise NotImplementedError("Java is not supported yet")
