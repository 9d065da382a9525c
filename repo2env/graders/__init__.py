"""The graders shipped into bundles, stdlib only, each copied byte for byte into a bundle's ``tests/``.

``runtime_verifier.py`` (ships as ``tests/verifier.py``: resets test files, runs the runner, grades F2P/P2P),
``diff_verifier.py`` (ships as ``tests/verifier.py`` of pr_diff: similarity to the reference diff),
``eqv_harness.py`` (ships as ``tests/eqv_harness.py``: equivalence cases), ``env_guard.py`` (ships as
``tests/env_guard.py``: the Python environment check and the stray-process killer). Nothing here imports outside
this folder: in a bundle the files sit side by side and run as ``python3 -I -S``."""

from pathlib import Path

_HERE = Path(__file__).resolve().parent


def source(name: str) -> bytes:
    """The bytes of grader ``name`` (``runtime_verifier``, ``diff_verifier``, ``eqv_harness``, ``env_guard``), as
    shipped into a bundle. Raises ``FileNotFoundError`` for an unknown name."""
    return (_HERE / f"{name}.py").read_bytes()
