"""How a Maven project is installed in its task image: the toolchain image ``r2e/java:<version>`` (built by
``scripts/setup_docker.sh`` from this host's JDK and Maven; ``RepoEnvConfig.toolchain`` picks another), every
plugin and dependency of the build resolved from Maven Central at image build time into the local repository
``/opt/r2e/m2`` (the versions are the ones the POMs name: Maven resolves no ranges by date), by running the build
to its ``test`` phase once with a test filter that selects every class and no method (``test-compile`` alone, or
a filter that selects no class, would not fetch Surefire's test-framework provider). The grader runs offline on a
private copy of that repository and never trusts it beyond its recorded manifest."""

import shlex

from repo2env.core import gitrepo
from repo2env.core.records import InstallRecipe, RecipePart
from repo2env.graders.java_runner import DEFAULT_TOOLCHAIN, MAVEN_FLAGS
from repo2env.languages.toolchain import host_version

DEFAULT_JAVA = "17"
# a -Dtest filter that selects every test class and no method: Surefire forks its JVM with the test framework's
# provider (resolved only when a class is selected), and no test runs
NO_TEST = "*#r2eNoSuchMethod"


def host_java_version() -> str:
    """The feature version of this host's ``javac`` (what ``scripts/setup_docker.sh`` builds ``r2e/java`` from),
    else ``DEFAULT_JAVA``."""
    return host_version(("javac", "-version"), r"javac (\d+)", DEFAULT_JAVA)


def image_for(version: str) -> str:
    """The toolchain image of Java ``version`` (a feature version: ``17``)."""
    return f"r2e/java:{version}"


def build_env() -> dict[str, str]:
    """The environment of the install (and of the image): the JDK and Maven of the image, no rc files."""
    return {"JAVA_HOME": DEFAULT_TOOLCHAIN["java_home"], "MAVEN_SKIP_RC": "1"}


def detect_recipe(repo_path: str, commit: str, override) -> InstallRecipe:
    """The recipe at ``commit`` (module docstring). ``override.install`` replaces the commands, ``override.env``
    adds variables, ``override.toolchain`` picks the Java version. Raises ``GitError`` for a missing commit."""
    if gitrepo.show_file(repo_path, commit, "pom.xml") is None:
        raise ValueError(f"no pom.xml at {commit[:12]}")
    version = (override.toolchain if override and override.toolchain else None) or host_java_version()
    m2 = shlex.quote(DEFAULT_TOOLCHAIN["m2"])
    flags = " ".join(shlex.quote(f) for f in MAVEN_FLAGS)
    commands = (tuple(override.install) if override and override.install else (
        f"mkdir -p {m2}",
        # plugins and dependencies of every phase up to test, Surefire's provider among them; a build that fails
        # here fails again in the runs, which then say why
        f"(mvn -fae -Dmaven.repo.local={m2} {flags} -Dtest={shlex.quote(NO_TEST)} -DfailIfNoTests=false "
        "-Dsurefire.failIfNoSpecifiedTests=false -Dmaven.test.failure.ignore=true test >/tmp/r2e-mvn-install.log "
        "2>&1 || (tail -n 40 /tmp/r2e-mvn-install.log; false))",
        # build output is not the agent's, and the resolver's download records are not the grader's
        "find . -name target -type d -prune -exec rm -rf {} +",
        f"find {m2} \\( -name '*.lastUpdated' -o -name 'resolver-status.properties' \\) -delete",
        f"chmod -R a+rX {m2}"))
    parts = (RecipePart(kind="toolchain", name=image_for(version), why="pom.xml (Maven)"),)
    env = dict(build_env(), **(override.env if override else {}))
    return InstallRecipe(base_image=image_for(version), commands=commands, env=env, source="detected:pom.xml",
                         plan={"java": version}, rung=f"java {version}", parts=parts)
