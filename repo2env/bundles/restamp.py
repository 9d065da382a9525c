"""Re-stamping a bundle after a deliberate edit (a curator rewrote ``instruction.md``, fixed a test file): its
``content_hash`` and ``bundle_hash`` are computed again, and an evaluation label measured on the old bundle
becomes ``stale`` (reason ``bundle_rewritten``; its evidence kept, bound to the hash it was measured on). The
label is earned again by measuring the controls (``repo2rlenv restamp --run`` or ``validate --run --in-place``).
"""

from dataclasses import dataclass
from pathlib import Path

import tomlkit

from repo2env.bundles.hashing import bundle_hash, content_hash
from repo2env.bundles.task_toml import rebind_labels
from repo2env.core.errors import InputError


@dataclass(frozen=True)
class Restamped:
    """One re-stamped bundle: its hash before and after (``sha256:<hex>``; ``before`` None when none was
    recorded), and whether its label became stale now."""

    path: str
    before: str | None
    after: str
    stale: bool

    @property
    def changed(self) -> bool:
        """The bundle's hash moved (it was edited since it was stamped)."""
        return self.before != self.after


def restamp(bundle: Path) -> Restamped:
    """Re-stamp ``bundle`` in place (module docstring). Raises ``InputError`` when it has no readable
    ``task.toml``."""
    path = bundle / "task.toml"
    try:
        doc = tomlkit.parse(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomlkit.exceptions.ParseError) as exc:
        raise InputError(f"{bundle}: no readable task.toml ({exc}); pass a task folder") from None
    r2e = doc.get("metadata", {}).get("repo2env")
    before = r2e.get("bundle_hash") if r2e is not None else None
    if r2e is not None and "content_hash" in r2e:
        fresh = content_hash(bundle)
        if r2e["content_hash"] != fresh:
            r2e["content_hash"] = fresh
            path.write_text(tomlkit.dumps(doc), encoding="utf-8")
    after = bundle_hash(bundle)
    stale = rebind_labels(bundle, after) if before != after else False
    return Restamped(str(bundle), before, after, stale)
