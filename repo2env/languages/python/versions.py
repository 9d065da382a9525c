"""The Python a base commit's tests run on, among 3.8-3.13, and the ones to fall back to.

Evidence, all from the base commit: ``requires-python`` (``[project]``, ``setup.cfg python_requires``,
``setup.py python_requires=``) bounds the candidates; the versions the project says it tests (trove classifiers
``Programming Language :: Python :: 3.X``, tox's envlist ``py39``/``py3.10``/``py3{8,9}``, CI matrices'
``python-version``) narrow them; and the commit date drops versions not yet released then (CPython's release
dates, https://peps.python.org/pep-0602/). Of what is left the newest up to ``DEFAULT_PYTHON`` is chosen (the
best-covered by wheels); the fallbacks are the older allowed versions, newest first, then the newer ones.
"""

import re
from dataclasses import dataclass, field

from packaging.specifiers import InvalidSpecifier, SpecifierSet

from repo2env.core.records import DEFAULT_PYTHON
from repo2env.languages.python import needs
from repo2env.languages.python.project import ProjectFiles

PYTHONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13")
RELEASED = {"3.8": "2019-10-14", "3.9": "2020-10-05", "3.10": "2021-10-04", "3.11": "2022-10-24",
            "3.12": "2023-10-02", "3.13": "2024-10-07"}
_CLASSIFIER = re.compile(r"Programming Language :: Python :: (3\.\d+)\b")
_TOX_ENV = re.compile(r"^py(?:thon)?(3)\.?(\d+)$")
_CI_KEYS = ("python-version", "python_version", "python", "pythonversion", "python-versions", "toxenv", "tox-env")


def vkey(version: str) -> tuple[int, ...]:
    """``"3.10"`` -> ``(3, 10)`` (for ordering versions)."""
    return tuple(int(p) for p in version.split("."))


@dataclass(frozen=True)
class PythonChoice:
    """``order``: the Pythons to try, first the chosen one (empty: none of 3.8-3.13 is allowed); ``why``: one
    sentence naming the evidence; ``requires``: the requires-python text, if any."""

    order: tuple[str, ...]
    why: str
    requires: str | None = None
    listed: tuple[str, ...] = field(default=())


def requires_python(pf: ProjectFiles) -> str | None:
    """The base commit's requires-python specifier text, or None."""
    value = pf.project.get("requires-python")
    if not value and pf.setup_cfg.has_option("options", "python_requires"):
        value = pf.setup_cfg.get("options", "python_requires")
    if not value:
        value = needs._lenient(needs._setup_py_keyword, pf.text("setup.py") or "", "python_requires")
    if not value:  # Poetry: python = "^3.8" among the dependencies
        deps = pf.tool("poetry").get("dependencies")
        value = _poetry_python(deps.get("python")) if isinstance(deps, dict) else None
    return value.strip() if isinstance(value, str) and value.strip() else None


def _poetry_python(spec) -> str | None:
    """Poetry's ``python`` constraint as a PEP 440 specifier: ``^3.8`` -> ``>=3.8,<4.0``, ``~3.8`` ->
    ``>=3.8,<3.9``; PEP 440 text as it is (Poetry's caret and tilde rules, python-poetry.org/docs/dependency-
    specification)."""
    if not isinstance(spec, str):
        return None
    out = []
    for part in (p.strip() for p in spec.split(",")):
        m = re.match(r"^([\^~])\s*(\d+)(?:\.(\d+))?", part)
        if m:
            major, minor = int(m.group(2)), int(m.group(3) or 0)
            upper = f"{major + 1}.0" if m.group(1) == "^" else f"{major}.{minor + 1}"
            out += [f">={major}.{minor}", f"<{upper}"]
        elif part and part != "*":
            out.append(part)
    return ",".join(out) or None


def _allows(spec: str | None, version: str) -> bool:
    if not spec:
        return True
    try:
        specifier = SpecifierSet(spec)
    except InvalidSpecifier:
        return True
    return any(specifier.contains(f"{version}.{patch}", prereleases=True) for patch in (0, 99))


def _expand_braces(text: str) -> list[str]:
    m = re.search(r"\{([^{}]*)\}", text)
    if not m:
        return [text]
    return [x for part in m.group(1).split(",") for x in _expand_braces(text[:m.start()] + part.strip()
                                                                            + text[m.end():])]


def _tox_versions(pf: ProjectFiles) -> set[str]:
    text = ""
    for key in ("envlist", "env_list"):  # tox 3 and tox 4 spellings
        if pf.tox.has_option("tox", key):
            text += "\n" + pf.tox.get("tox", key)
    envs = pf.tox_toml.get("env_list")
    names = [n for n in envs if isinstance(n, str)] if isinstance(envs, list) else []
    for chunk in re.split(r"[\s,]+(?![^{]*\})", text):
        names += _expand_braces(chunk.strip())
    found = set()
    for name in names:
        for factor in name.split("-"):
            m = _TOX_ENV.match(factor.strip())
            if m:
                found.add(f"{m.group(1)}.{m.group(2)}")
    return found


_CI_KEY = re.compile(r"^\s*-?\s*['\"]?(python-version|python_version|python|pythonversion|python-versions|toxenv|"
                     r"tox-env|tox_env)['\"]?\s*[:=]\s*(.*)$", re.IGNORECASE)
_CI_VERSION = re.compile(r"(?<![\d.])(?:py(?:thon)?)?3\.?(\d{1,2})(?![\d])")


def _ci_versions(pf: ProjectFiles) -> set[str]:
    """Python versions CI matrices name, read from the text (YAML would read ``3.10`` as the float 3.1): the
    value of a ``python-version``/``python``/``toxenv`` key, inline or as the ``- item`` lines under it."""
    found = set()
    for text in pf.ci_texts().values():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = _CI_KEY.match(line)
            if not m:
                continue
            values = [m.group(2)]
            if not m.group(2).strip() or m.group(2).strip() in ("[", "|", ">"):
                for follow in lines[i + 1:i + 15]:
                    if re.match(r"^\s*-\s", follow) or re.match(r"^\s*['\"]?3\.\d", follow):
                        values.append(follow)
                    elif follow.strip() and not follow.strip().startswith("#"):
                        break
            for value in values:
                for minor in _CI_VERSION.findall(value.split("#", 1)[0]):
                    if 0 <= int(minor) <= 20:
                        found.add(f"3.{int(minor)}")
    return found


def _classifier_versions(pf: ProjectFiles) -> set[str]:
    classifiers = pf.project.get("classifiers")
    texts = [str(c) for c in classifiers] if isinstance(classifiers, list) else []
    if pf.setup_cfg.has_option("metadata", "classifiers"):
        texts.append(pf.setup_cfg.get("metadata", "classifiers"))
    texts.append(pf.text("setup.py") or "")
    return {v for t in texts for v in _CLASSIFIER.findall(t)}


def choose(pf: ProjectFiles) -> PythonChoice:
    """The Pythons to try for the commit in ``pf`` (module docstring)."""
    spec = requires_python(pf)
    allowed = [v for v in PYTHONS if _allows(spec, v)]
    if not allowed:
        return PythonChoice(order=(), why=f"requires-python {spec} allows none of {', '.join(PYTHONS)}",
                            requires=spec)
    day = pf.date[:10]
    dated = [v for v in allowed if RELEASED[v] <= day] or [allowed[0]]
    sources = {name: needs._lenient(reader, pf, default=set()) for name, reader in (
        ("classifiers", _classifier_versions), ("tox envlist", _tox_versions), ("CI", _ci_versions))}
    listed = set().union(*sources.values())
    pool = [v for v in dated if v in listed] or dated
    capped = [v for v in pool if vkey(v) <= vkey(DEFAULT_PYTHON)]
    chosen = max(capped, key=vkey) if capped else min(pool, key=vkey)
    lower = sorted((v for v in allowed if vkey(v) < vkey(chosen)), key=vkey, reverse=True)
    higher = sorted((v for v in pool if vkey(v) > vkey(chosen)), key=vkey)
    named = [name for name, found in sources.items() if found & set(pool)]
    if not any(RELEASED[v] <= day for v in allowed):
        older = sorted((v for v in listed if vkey(v) < vkey(chosen)), key=vkey)
        why = (f"{chosen}: the oldest Python on offer; the commit ({day}) predates it"
               + (f" (it names {', '.join(older)})" if older else "") + (f"; requires-python {spec}" if spec else ""))
    else:
        why = (f"{chosen}: newest of {', '.join(pool)} " + (f"({', '.join(named)}) " if named else "")
               + f"released by {day}" + (f", up to {DEFAULT_PYTHON}" if capped and capped != pool else "")
               + (f"; requires-python {spec}" if spec else ""))
    return PythonChoice(order=(chosen, *lower, *higher), why=why, requires=spec,
                        listed=tuple(sorted(listed, key=vkey)))
