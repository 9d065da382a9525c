"""The digest of a runtime bundle's grading inputs, carried by ``tests/test.sh``
(``--inputs-sha256``, see ``graders/runtime_verifier.py``): the grader refuses inputs whose digest differs, so a
tool that changes an input (the schema 1.3 rewrite, a curator's edit) writes the new digest with ``restamp``."""

import os
import re
from pathlib import Path

from repo2env.graders import runtime_verifier

DIGEST_ARG = re.compile(r"--inputs-sha256 [0-9a-f]{64}")


def restamp(bundle: Path) -> bool:
    """Write the digest of ``bundle/tests``' current inputs into ``bundle/tests/test.sh``; returns False when
    that test.sh carries none (not a runtime bundle). Keeps the file's mode."""
    path = bundle / "tests" / "test.sh"
    text = path.read_text(encoding="utf-8")
    if not DIGEST_ARG.search(text):
        return False
    digest = runtime_verifier.inputs_digest(str(bundle / "tests"))
    mode = os.stat(path).st_mode & 0o777
    path.write_text(DIGEST_ARG.sub(f"--inputs-sha256 {digest}", text), encoding="utf-8")
    os.chmod(path, mode)
    return True
