"""Bundle identities: ``content_hash`` (instruction + oracle) and ``bundle_hash`` (the executable bundle).

Both are ``sha256:<hex>``; the exact byte layout is in ``specs/bundle-spec.md`` so others can re-implement them.

bundle_hash input, in order: the normalised configuration, i.e. ``task.toml`` parsed, without the volatile
fields (``metadata.repo2env.bundle_hash``, ``.evaluation``, ``.built_at``, and every ``run_seconds_before`` /
``run_seconds_after`` / ``pushed_at`` / ``attempts`` in a table below ``metadata.repo2env``), as JSON with sorted keys and
``(",", ":")`` separators, then ``\\0``; then for every other regular file in path order (POSIX, relative,
UTF-8 byte order): ``path \\0 mode \\0 sha256(bytes) \\n`` where mode is ``0755`` when any execute bit is set,
else ``0644``. Symlinks and special files are refused.
"""

import hashlib
import json
import stat
import tomllib
from pathlib import Path

from repo2env.core.errors import InputError

CONFIG = "task.toml"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def bundle_files(bundle: Path) -> list[Path]:
    """Every regular file below ``bundle`` except task.toml, sorted by POSIX path bytes.

    Raises ``InputError`` on a symlink or special file (they would make the hash machine-dependent).
    """
    files = []
    for path in bundle.rglob("*"):
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode) or not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise InputError(f"{path}: symlinks and special files are not allowed in a bundle")
        if stat.S_ISREG(mode) and path.relative_to(bundle).as_posix() != CONFIG:
            files.append(path)
    return sorted(files, key=lambda p: p.relative_to(bundle).as_posix().encode())


VOLATILE = ("bundle_hash", "evaluation", "built_at")  # keys of [metadata.repo2env] outside the hash
# keys of its sub-tables outside the hash: timings, and how the environment was found (not what it is)
VOLATILE_TIMINGS = ("run_seconds_before", "run_seconds_after", "pushed_at", "attempts")


def normalised_config(config: dict) -> bytes:
    """The configuration without its volatile fields (the hash, the evaluation label, when and how fast it was
    built), as canonical JSON bytes: two builds of the same bundle get the same hash."""
    cfg = json.loads(json.dumps(config, default=str))
    r2e = cfg.get("metadata", {}).get("repo2env", {})
    for key in VOLATILE:
        r2e.pop(key, None)
    for table in r2e.values():
        if isinstance(table, dict):
            for key in VOLATILE_TIMINGS:
                table.pop(key, None)
    return json.dumps(cfg, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _file_lines(bundle: Path):
    for path in bundle_files(bundle):
        mode = "0755" if path.stat().st_mode & 0o111 else "0644"
        rel = path.relative_to(bundle).as_posix()
        yield f"{rel}\0{mode}\0{_sha(path.read_bytes())}\n".encode()


def bundle_hash(bundle: Path) -> str:
    """``sha256:<hex>`` of the bundle directory (see module docstring)."""
    h = hashlib.sha256()
    config = tomllib.loads((bundle / CONFIG).read_text(encoding="utf-8"))
    h.update(normalised_config(config) + b"\0")
    for line in _file_lines(bundle):
        h.update(line)
    return "sha256:" + h.hexdigest()


def files_hash(bundle: Path) -> str:
    """``sha256:<hex>`` of every file of the bundle but task.toml (the file part of ``bundle_hash``): what a
    schema 1.4 ``[task].version`` is derived from, since task.toml cannot hold a hash of itself."""
    h = hashlib.sha256()
    for line in _file_lines(bundle):
        h.update(line)
    return "sha256:" + h.hexdigest()


def content_hash(bundle: Path) -> str:
    """``sha256:<hex>`` over instruction.md and every file of solution/: ``path \\0 sha256(bytes) \\n`` each."""
    h = hashlib.sha256()
    paths = [bundle / "instruction.md", *sorted((bundle / "solution").rglob("*"))]
    for path in paths:
        if path.is_file():
            h.update(f"{path.relative_to(bundle).as_posix()}\0{_sha(path.read_bytes())}\n".encode())
    return "sha256:" + h.hexdigest()
