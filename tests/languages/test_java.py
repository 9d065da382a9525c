"""The Java language plugin (repo2env/languages/java): detection (Maven supported, Gradle recognised and skipped with
its reason, a Python project with a pom left to Python), Maven's test-file rules, the method-source rule that keeps
unchanged tests of a class that did not compile as PASS_TO_PASS, and the recipe."""

from repo2env import languages
from repo2env.languages.java import files, recipe
from tests.helpers.java_repo import CALC_TEST, CALC_TEST_V3, CALC_TEST_V5, build_java_repo


def test_maven_is_supported_and_gradle_is_skipped_with_its_reason():
    language, found = languages.detect({"pom.xml", "src/main/java/A.java", "src/test/java/ATest.java"})
    assert (language.name, found.supported, found.evidence) == ("java", True, ("pom.xml",))
    gradle = languages.detect({"build.gradle.kts", "app/src/main/kotlin/A.kt"})[1]
    assert not gradle.supported and gradle.reason.startswith("a Java project built with Gradle")
    assert languages.detect({"pom.xml", "tools/gen.py"})[0].name == "python"


def test_test_files_are_mavens_test_tree():
    assert files.is_test_path("src/test/java/com/x/ATest.java")
    assert files.is_test_path("core/src/test/resources/data.json")
    assert not files.is_test_path("src/main/java/com/x/Test.java")
    assert files.is_runnable("src/test/java/com/x/ATest.java", "class ATest {\n  @Test\n  void a() {}\n}\n")
    helper = "class Helper {\n  static int x() { return 1; }\n}\n"
    assert not files.is_runnable("src/test/java/com/x/Helper.java", helper)
    assert files.is_runnable("src/test/java/com/x/OldTest.java", "public class OldTest extends TestCase {}")
    assert files.is_config_path(".mvn/maven.config") and files.is_config_path("core/pom.xml")


def test_same_method_tells_edited_tests_from_unchanged_ones():
    assert files.same_method(CALC_TEST_V3, CALC_TEST_V5, "clampAbove")
    assert not files.same_method(CALC_TEST_V3, CALC_TEST_V5, "lerpMidpoint")  # new
    edited = CALC_TEST_V5.replace("Calc.clamp(15, 0, 10)", "Calc.clamp(16, 0, 10)")
    assert not files.same_method(CALC_TEST_V5, edited, "clampAbove")
    assert files.method_source('class A {\n  void f() {\n    String s = "}";\n  }\n}\n', "f") == \
        'f() {\n    String s = "}";\n  }'


def test_recipe_resolves_every_phase_up_to_test_into_the_images_repository(tmp_path):
    repo = build_java_repo(tmp_path / "calc")
    made = recipe.detect_recipe(str(repo), "HEAD", None)
    assert made.base_image == recipe.image_for(recipe.host_java_version())
    assert any("-Dmaven.repo.local=/opt/r2e/m2" in c and "r2eNoSuchMethod" in c for c in made.commands)
    assert made.env["MAVEN_SKIP_RC"] == "1"
    assert CALC_TEST.startswith("src/test/java/")


def test_mavens_project_configuration_is_reset_from_the_base_tree():
    # a base commit's .mvn/maven.config or extensions.xml edited by the agent could load code into Maven itself
    # (-Dmaven.ext.class.path, a core extension): the overlay writes them back by name
    assert {"maven.config", "extensions.xml", "pom.xml"} <= set(files.CONFIG_NAMES)
    assert files.is_config_path(".mvn/extensions.xml") and files.is_config_path(".mvn/wrapper/maven-wrapper.jar")
