"""Java repositories are recognised and skipped with their reason (repo2env/languages/java)."""

from repo2env import languages


def test_java_is_recognised_and_skipped_with_its_reason():
    language, found = languages.detect({"pom.xml", "src/main/java/A.java", "src/test/java/ATest.java"})
    assert (language.name, found.supported) == ("java", False) and "Maven" in found.reason
    assert languages.detect({"build.gradle.kts", "app/src/main/kotlin/A.kt"})[1].reason.startswith(
        "a Java project built with Gradle")
    assert languages.detect({"pom.xml", "tools/gen.py"})[0].name == "python"
