"""repo2env/run/incremental.py: what decides that a candidate's task must be made again."""

import hashlib
from pathlib import Path

import repo2env
from repo2env.run import incremental


def test_the_fingerprint_covers_the_graders_and_templates_a_bundle_ships():
    """A nightly re-run after the grader changed must re-verify every task (the demo's tasks were "unchanged"
    under a grader a red team had beaten): the digest is over every grader module and template, by path and
    bytes, so a change to any of them gives another fingerprint."""
    root = Path(repo2env.__file__).parent
    files = sorted(list((root / "graders").glob("*.py")) + [p for p in (root / "templates").rglob("*")
                                                            if p.is_file() and "__pycache__" not in p.parts])
    assert root / "graders" / "runtime_verifier.py" in files and root / "templates" / "test.sh" in files
    assert root / "templates" / "probes" / "code_spare_copies.sh" in files

    def digest(changed=None):
        h = hashlib.sha256()
        for path in files:
            data = path.read_bytes() + (b"#" if path == changed else b"")
            h.update(path.relative_to(root).as_posix().encode() + b"\0" + data + b"\0")
        return h.hexdigest()
    assert incremental.checks_digest() == digest()
    assert digest(root / "graders" / "runtime_verifier.py") != digest()
