"""Which tests exercise which function, at one revision: one run of the repository's whole test suite in a container
of the revision's task image with ``callmap_plugin`` loaded (the functions each test calls, its outcome), cached in
a JSON file keyed by the revision and the image, so every mutant of the revision, and every later run, reads it.
"""

import io
import json
import tarfile
from dataclasses import dataclass
from pathlib import Path

from repo2env.core.errors import TestRunError
from repo2env.environment.containers import TaskContainer

PLUGIN = Path(__file__).with_name("callmap_plugin.py")  # run in the container, never imported here
RUN_TIMEOUT_SEC = 3600


@dataclass(frozen=True)
class CallMap:
    """``tests``: node id -> the (path, first line) of every repository function it called; ``outcomes``: node
    id -> passed / failed / skipped at the revision; ``seconds``: how long the run took."""

    tests: dict[str, frozenset]
    outcomes: dict[str, str]
    seconds: float

    def covering(self, path: str, lines: tuple[int, ...]) -> list[str]:
        """Node ids of the tests that passed at the revision and called the function whose ``def`` (or one of
        its decorators) is at one of ``lines`` of ``path``. Sorted."""
        keys = {(path, line) for line in lines}
        return sorted(t for t, called in self.tests.items()
                      if self.outcomes.get(t) == "passed" and keys & called)

    def test_files(self) -> list[str]:
        """Every file that holds a test that passed at the revision. Sorted."""
        return sorted({t.split("::", 1)[0] for t, o in self.outcomes.items() if o == "passed"})

    def to_json(self) -> str:
        return json.dumps({"tests": {t: sorted(map(list, v)) for t, v in sorted(self.tests.items())},
                           "outcomes": dict(sorted(self.outcomes.items())), "seconds": round(self.seconds, 3)})

    @classmethod
    def from_json(cls, text: str) -> "CallMap":
        data = json.loads(text)
        return cls(tests={t: frozenset((p, int(n)) for p, n in v) for t, v in data["tests"].items()},
                   outcomes=dict(data["outcomes"]), seconds=float(data.get("seconds", 0.0)))


def _tar(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size, info.mode = len(data), 0o644
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def build_callmap(client, image_ref: str, python: str, cache: Path, *, memory_mb: int, cpus: float | None,
                  report=lambda message: None) -> CallMap:
    """The call map of the repository in ``image_ref`` (its ``/workspace``), run with the interpreter ``python``,
    from ``cache`` when it exists (written there otherwise, atomically). Raises ``TestRunError`` when the suite
    ran no test or wrote no map (its output's tail in the message)."""
    if cache.is_file():
        return CallMap.from_json(cache.read_text())
    report("call map: the whole suite with per-test call recording")
    with TaskContainer(client, image_ref, memory_mb=memory_mb, cpus=cpus, network=False) as box:
        box.put_tar("/tmp", _tar("r2e_callmap.py", PLUGIN.read_bytes()))
        code, tail, seconds = box.exec(
            ["env", "PYTHONPATH=/tmp", "R2E_CALLMAP_OUT=/tmp/r2e-callmap.json", "R2E_CALLMAP_ROOT=/workspace",
             "PYTHONDONTWRITEBYTECODE=1", python, "-m", "pytest", "-p", "r2e_callmap", "-p", "no:cacheprovider",
             "-q", "-rN", "--continue-on-collection-errors", "-o", "required_plugins="],
            timeout_sec=RUN_TIMEOUT_SEC)
        data = box.read_file("/tmp/r2e-callmap.json")
    if data is None:
        raise TestRunError(f"the call-map run wrote nothing (exit {code}): {tail[-600:]}")
    raw = json.loads(data)
    found = CallMap(tests={t: frozenset((p, int(n)) for p, n in v) for t, v in raw["tests"].items()},
                    outcomes=dict(raw["outcomes"]), seconds=seconds)
    if not found.outcomes:
        raise TestRunError(f"the call-map run collected no test (exit {code}): {tail[-600:]}")
    cache.parent.mkdir(parents=True, exist_ok=True)
    tmp = cache.with_suffix(".tmp")
    tmp.write_text(found.to_json())
    tmp.replace(cache)
    return found
