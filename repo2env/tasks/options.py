"""``--pipeline-opt KEY=VALUE`` parsing, written once for every pipeline.

A pipeline declares its options as ``{key: (parser, default, help)}`` (``help`` may be left out);
``parse_pipeline_opts`` refuses unknown keys (naming the ones the pipeline knows) and turns each value with its
parser. Parsers take the raw text and raise ``ValueError`` with what was expected (naming the allowed values);
that becomes one ``InputError`` line naming the option and its value. ``describe`` lists a spec for
``repo2rlenv pipelines --verbose``.
"""

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from repo2env.core.errors import InputError

Parser = Callable[[str], Any]


def flag(value: str) -> bool:
    """``true`` / ``false`` (any case)."""
    low = value.lower()
    if low not in ("true", "false"):
        raise ValueError("expected true or false")
    return low == "true"


def whole_number(value: str) -> int:
    """A whole number >= 0."""
    if not value.isdigit():
        raise ValueError("expected a whole number")
    return int(value)


def share(value: str) -> float:
    """A number between 0 and 1."""
    try:
        number = float(value)
    except ValueError:
        raise ValueError("expected a float") from None
    if not 0 <= number <= 1:
        raise ValueError("expected a share between 0 and 1")
    return number


def integer(value: str) -> int:
    """Any integer."""
    try:
        return int(value)
    except ValueError:
        raise ValueError("expected a int") from None


def choice(*allowed: str) -> Parser:
    """One of ``allowed`` (exact)."""
    def parse(value: str) -> str:
        if value not in allowed:
            raise ValueError(f"expected {' or '.join(allowed)}")
        return value
    parse.__doc__ = f"One of {', '.join(allowed)}."
    return parse


def existing_file(value: str) -> Path:
    """The path of an existing file."""
    path = Path(value).expanduser()
    if not path.is_file():
        raise ValueError(f"no such file {value}")
    return path


def words(value: str) -> tuple[str, ...]:
    """A comma-separated list; blanks dropped."""
    return tuple(x.strip() for x in value.split(",") if x.strip())


def some_of(*allowed: str) -> Parser:
    """A comma-separated list of ``allowed`` values (any case)."""
    def parse(value: str) -> tuple[str, ...]:
        items = tuple(x.lower() for x in words(value))
        wrong = [x for x in items if x not in allowed]
        if wrong:
            raise ValueError(f"{wrong[0]!r} is not one of {', '.join(allowed)}")
        return items
    parse.__doc__ = f"A comma-separated list of {', '.join(allowed)}."
    return parse


def parse_pipeline_opts(opts: dict[str, str], pipeline: str,
                        spec: dict[str, tuple[Parser, Any]]) -> dict[str, Any]:
    """Every key of ``spec`` with its parsed value, or its default when not given. Raises ``InputError`` for an
    unknown key or a value its parser refuses."""
    unknown = sorted(set(opts) - set(spec))
    if unknown:
        if not spec:
            raise InputError(f"--pipeline-opt {unknown[0]}: {pipeline} takes no pipeline options")
        raise InputError(f"--pipeline-opt {unknown[0]}: {pipeline} knows {', '.join(sorted(spec))}")
    out = {}
    for key, (parser, default, *_help) in spec.items():
        if key not in opts:
            out[key] = default
            continue
        try:
            out[key] = parser(opts[key])
        except ValueError as exc:
            raise InputError(f"--pipeline-opt {key}={opts[key]}: {exc}") from None
    return out


def describe(spec: dict) -> list[dict]:
    """Each option of ``spec``: ``{"key", "default", "expects", "help"}`` (``expects`` from the parser's
    docstring), in key order."""
    rows = []
    for key, (parser, default, *help_text) in sorted(spec.items()):
        text = " ".join((parser.__doc__ or "").replace("``", "").split())
        expects = re.split(r"(?<![.])[.]\s", text + " ")[0].strip().rstrip(".")
        shown = ",".join(default) if isinstance(default, tuple) else default
        rows.append({"key": key, "default": shown, "expects": expects, "help": help_text[0] if help_text else ""})
    return rows
