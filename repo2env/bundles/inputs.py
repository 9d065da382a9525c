"""What ``tests/test.sh`` pins of a bundle's grader: the digest of a runtime bundle's grading inputs
(``--inputs-sha256``, see ``graders/runtime_verifier.py``), which the grader checks, and the sha256 of each grader
file (``/tests/<file>=<sha256>``, see ``bundles/bootstrap.py``), which the bootstrap checks before running it. A tool
that changes an input or a grader file (the schema 1.3 rewrite, a curator's edit) writes the new values with
``restamp``."""

import os
import re
from pathlib import Path

from repo2env.bundles import bootstrap
from repo2env.graders import runtime_verifier

DIGEST_ARG = re.compile(r"--inputs-sha256 [0-9a-f]{64}")


def restamp(bundle: Path) -> bool:
    """Write the digest of ``bundle/tests``' current inputs (when test.sh carries one) and the current pins of its
    grader files (when test.sh carries them) into ``bundle/tests/test.sh``; returns False when it carries
    neither. Keeps the file's mode. Raises ``FileNotFoundError`` when a pinned grader file is gone."""
    path = bundle / "tests" / "test.sh"
    text = path.read_text(encoding="utf-8")
    digest_arg, pinned = DIGEST_ARG.search(text), bootstrap.PIN.search(text)
    if not digest_arg and not pinned:
        return False
    if pinned:
        names = [pin.rsplit("=", 1)[0][len("/tests/"):] for pin in pinned.group(0).rstrip(",").split(",")]
        text = text[:pinned.start()] + bootstrap.pins(bundle / "tests", names) + text[pinned.end():]
    if digest_arg:
        digest = runtime_verifier.inputs_digest(str(bundle / "tests"))
        text = DIGEST_ARG.sub(f"--inputs-sha256 {digest}", text)
    mode = os.stat(path).st_mode & 0o777
    path.write_text(text, encoding="utf-8")
    os.chmod(path, mode)
    return True
