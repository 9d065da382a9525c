"""What the toolchain languages (Go, JavaScript/TypeScript, Rust, Java) share: their grader
(``graders/toolchain_verifier.py`` with the language's runner module), its ``run`` command and results, the
environment manifest of their image, and reading the host toolchain's version (what ``scripts/setup_docker.sh``
builds their image from)."""

import functools
import json
import re
import subprocess

from repo2env import graders
from repo2env.environment.manifest import env_snapshot
from repo2env.instructions.observed.test_output import observed_from_output


@functools.cache
def host_version(argv: tuple[str, ...], pattern: str, default: str) -> str:
    """The first group of ``pattern`` in what ``argv`` prints (``go env GOVERSION`` -> ``1.26``), else
    ``default`` (no such program, or an unexpected answer)."""
    try:
        out = subprocess.run(list(argv), capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return default
    found = re.match(pattern, out.strip())
    return found.group(1) if found else default


def braced_source(text: str, start: int, quotes: str = '"') -> str | None:
    """``text`` from ``start`` (a declaration) to the ``}`` that closes the first ``{`` after it, braces inside
    string literals (delimited by any of ``quotes``: Rust's ``'`` is a lifetime as often as a char) and ``//``
    comments ignored; None when the braces do not close."""
    depth, opened, i = 0, False, start
    # a string may span lines (Rust's do), a char literal may not
    literal = {q: re.compile(r"%s(?:[^%s\\%s]|\\.)*%s" % (q, q, "" if q == '"' else "\n", q), re.S) for q in quotes}
    while i < len(text):
        ch = text[i]
        if ch in literal:
            end = literal[ch].match(text, i)
            i = end.end() if end else i + 1
            continue
        if text.startswith("//", i):
            i = text.find("\n", i) if text.find("\n", i) >= 0 else len(text)
            continue
        if ch == "{":
            depth, opened = depth + 1, True
        elif ch == "}":
            depth -= 1
            if opened and depth == 0:
                return text[start:i + 1]
        i += 1
    return None


def move_unbuilt(selection, before: list, unchanged):
    """``selection`` with the FAIL_TO_PASS tests that failed only because their file or target did not build with
    the new tests (the node id's file a collection error in every run ``before`` the fix) and that the test patch
    left as they were (``unchanged(path, name)``: the same function at the base commit) moved to PASS_TO_PASS:
    they pass at the base commit, and the fix must keep them passing. SWE-bench counts every test of a module that
    cannot be imported as failing; this keeps that rule from making old tests FAIL_TO_PASS (Go, Rust)."""
    broken = set.intersection(*(set(r.collection_errors) for r in before)) if before else set()
    moved = []
    for test_id in selection.fail_to_pass:
        path, _, name = test_id.partition("::")
        if path in broken and unchanged(path, name):
            moved.append(test_id)
    if not moved:
        return selection
    return selection.model_copy(update={
        "fail_to_pass": tuple(t for t in selection.fail_to_pass if t not in moved),
        "pass_to_pass": tuple(sorted(set(selection.pass_to_pass) | set(moved)))})


class ToolchainLanguage:
    """The parts of a ``repo2env.languages.Language`` a toolchain language shares. A subclass sets ``runner_module``
    (``go_runner``), ``manifest_label`` and implements ``manifest_roots(config)``: the folders the environment
    check records whole (``--skip=NAME`` entries leave folders of that name out)."""

    runner_module = ""
    manifest_label = ""
    restores_base_tests = True  # the grader writes every test file of the base tree back (tasks.runtime)

    def grader_files(self) -> dict[str, bytes]:
        """``verifier.py`` (``toolchain_verifier``), the runner module, ``runtime_verifier.py`` (the shared parts)
        and ``env_guard.py``."""
        return {"verifier.py": graders.source("toolchain_verifier"),
                f"{self.runner_module}.py": graders.source(self.runner_module),
                "runtime_verifier.py": graders.source("runtime_verifier"), "env_guard.py": graders.source("env_guard")}

    def test_command(self, tests_dir: str, result_path: str) -> list[str]:
        """``verifier.py run``: put the test files in place, run the tests as the grader does, write the outcomes
        (node ids resolved in the container, where the test files are)."""
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

    def observed_behaviour(self, evidence) -> list[str]:
        """What the FAIL_TO_PASS tests saw before the fix, from the runner's failure output
        (``instructions.observed.test_output``)."""
        return observed_from_output(evidence)

    def manifest_roots(self, config: dict) -> tuple[str, ...]:
        raise NotImplementedError

    def toolchain(self) -> dict:
        raise NotImplementedError

    def record_environment(self, client, image_ref: str, stage, config: dict, report) -> None:
        """Write ``tests/python_env.json`` (the grader's Python plus, whole, ``manifest_roots``) and record in
        ``config`` the toolchain's folders (``toolchain()``), the interpreter's path and the check's seconds;
        rewrites ``tests/config.json``."""
        report(f"{self.manifest_label} environment manifest")
        taken = env_snapshot(client, image_ref, stage.root, self.manifest_roots(config))
        config["toolchain"] = self.toolchain()
        if taken is not None:
            text, seconds = taken
            stage.write_text("tests/python_env.json", text)
            config["python"] = json.loads(text)["executable"]
            config["env_check_seconds"] = seconds
        stage.write_text("tests/config.json", json.dumps(config, indent=1) + "\n")
