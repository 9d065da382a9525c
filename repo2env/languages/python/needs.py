"""What a Python project's tests need installed, found in its own files at the base commit, each with why.

Sources, in the order a maintainer would look:

* extras: ``[project.optional-dependencies]``, ``setup.cfg [options.extras_require]``, ``setup.py``'s
  ``extras_require`` (read with ``ast``); the test ones (test/tests/testing, else dev) and every extra a test
  runner names: tox's ``extras`` (factor-conditional lines such as ``crypto: crypto`` too, tox's own syntax,
  https://tox.wiki/en/latest/config.html), ``.[x]`` in tox deps, nox sessions' ``session.install(".[x]")``, and
  ``pip install .[x]`` / ``uv sync --extra x`` lines of the CI definitions;
* PEP 735 dependency groups (``[dependency-groups]``, https://peps.python.org/pep-0735/): test/tests/testing
  (else dev) and every group tox (``dependency_groups``) or CI (``--group x``) names, installed with uv's
  ``--group``; tool groups uv does not read (Poetry's ``[tool.poetry.group.<g>]`` and ``dev-dependencies``,
  PDM's ``[tool.pdm.dev-dependencies]``, Hatch's test environments) become plain requirements;
* requirements files for tests or development, and the ones tox, nox or CI name with ``-r``;
* packages: ``tests_require``, tox deps, nox session installs.

``TestNeeds.provider`` maps a distribution back to the extra or group that declares it (the feedback loop uses it).
"""

import ast
import re
from dataclasses import dataclass, field

import yaml
from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name

from repo2env.languages.python.project import ProjectFiles, is_test_requirements

TEST_NAMES = ("test", "tests", "testing")
FALLBACK_NAMES = ("dev",)
# tox/nox environments that are not test runs: their extras and deps are not the tests' needs.
NOT_TEST_ENVS = frozenset("""docs doc lint linters linting flake8 pep8 mypy typing types type style format fmt black
isort pre-commit precommit build release publish packaging check checkqa qa coverage-report clean report bench
benchmark benchmarks spell spelling readme manifest pylint ruff changelog upload pyright docstyle safety pypi
description dist sdist wheel fix pkg_meta pkg-meta meta dev devenv develop coverage""".split())
# A named tox environment runs the tests when it has no commands of its own (it inherits the test run) or its
# commands call a test runner.
_RUNS_TESTS = re.compile(r"\b(pytest|py\.test|unittest|nosetests|nose2?|trial|setup\.py\s+test|stestr|zope-testrunner)\b")
_FACTOR = re.compile(r"^\s*(!?[\w{},.!-]+)\s*:\s+(.*)$")
_EXTRAS_IN = re.compile(r"(?:^|[\s'\"=])(?:-e\s*)?\.(?:/)?\[([\w,\s.-]+)\]")
_PIP_LINE = re.compile(r"\b(?:pip3?|uv\s+pip|python3?\s+-m\s+pip)\s+install\b|\buv\s+sync\b")


@dataclass
class TestNeeds:
    """``extras``/``groups``/``requirement_files``/``packages``: name -> why (a short phrase naming the file);
    ``declared_extras``/``declared_groups``: every extra / PEP 735 group the project declares -> its requirement
    strings."""

    __test__ = False

    extras: dict[str, str] = field(default_factory=dict)
    groups: dict[str, str] = field(default_factory=dict)
    requirement_files: dict[str, str] = field(default_factory=dict)
    packages: dict[str, str] = field(default_factory=dict)
    declared_extras: dict[str, list[str]] = field(default_factory=dict)
    declared_groups: dict[str, list[str]] = field(default_factory=dict)

    def provider(self, dist: str) -> tuple[str, str] | None:
        """``("extra", name)`` or ``("group", name)`` declaring the distribution ``dist`` (test ones first), or
        None."""
        want = canonicalize_name(dist)
        for kind, table in (("extra", self.declared_extras), ("group", self.declared_groups)):
            names = sorted(table, key=lambda n: (n not in TEST_NAMES, n not in FALLBACK_NAMES, n))
            for name in names:
                if any(distribution(req) == want for req in table[name]):
                    return kind, name
        return None


def distribution(req: str) -> str | None:
    """The canonical distribution name of a requirement string (``Foo_Bar[x]>=1; python_version<"3"`` ->
    ``foo-bar``), or None when it is not a PEP 508 requirement."""
    try:
        return canonicalize_name(Requirement(req).name)
    except InvalidRequirement:
        return None


def _valid_requirement(text: str) -> str | None:
    text = text.strip()
    if not text or text.startswith(("-", ".", "/", "{")) or "{" in text:
        return None
    try:
        Requirement(text)
    except InvalidRequirement:
        return None
    return text


def _lenient(reader, *args, default=None):
    """``reader(*args)``, or ``default`` when the project's file is shaped in a way it does not expect: a file
    that cannot be read is no evidence, never a crash (tox, setuptools and CI runners are lenient too)."""
    try:
        return reader(*args)
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, RecursionError, SyntaxError):
        return default


def _as_list(value) -> list[str]:
    """A requirement list as setup.py or a TOML file may spell it: a list, a tuple, or one string of lines."""
    if isinstance(value, str):
        return _lines(value)
    if isinstance(value, list | tuple):
        return [str(v) for v in value if isinstance(v, str)]
    return []


def find(pf: ProjectFiles) -> TestNeeds:
    """Everything the tests of the project in ``pf`` need, with why (module docstring). Never raises for a
    malformed file: the source is left out."""
    needs = TestNeeds(declared_extras=_lenient(declared_extras, pf, default={}),
                      declared_groups=_lenient(_pep735_groups, pf, default={}))
    _from_declared(needs)
    for reader in (_from_tox, _from_nox, _from_ci, _from_tool_groups):
        _lenient(reader, pf, needs)
    for path in sorted(p for p in pf.tree if is_test_requirements(p)):
        needs.requirement_files.setdefault(path, "test/dev requirements file")
    tests_require = _as_list(_lenient(_setup_py_keyword, pf.text("setup.py") or "", "tests_require"))
    if pf.setup_cfg.has_option("options", "tests_require"):
        tests_require += _lines(pf.setup_cfg.get("options", "tests_require"))
    for req in tests_require:
        if _valid_requirement(req):
            needs.packages.setdefault(req, "tests_require")
    needs.packages = _one_variant_each(needs.packages)
    # Only what the project declares can be asked for by name.
    needs.extras = {k: v for k, v in needs.extras.items() if k in needs.declared_extras}
    needs.groups = {k: v for k, v in needs.groups.items() if k in needs.declared_groups}
    needs.requirement_files = {k: v for k, v in needs.requirement_files.items() if k in pf.tree}
    return needs


def _one_variant_each(packages: dict[str, str]) -> dict[str, str]:
    """One requirement per distribution: tox factors list variants of one (``django22: Django<2.3``,
    ``django32: Django<3.3``) that no single install can hold; the last listed is kept (the newest, as tox
    configurations list them oldest first)."""
    last: dict[str, str] = {}
    for req in packages:
        last[distribution(req) or req] = req
    keep = set(last.values())
    return {req: why for req, why in packages.items() if req in keep}


def _from_declared(needs: TestNeeds) -> None:
    for table, out, label in ((needs.declared_extras, needs.extras, "extra"),
                              (needs.declared_groups, needs.groups, "dependency group")):
        chosen = [n for n in TEST_NAMES if n in table] or [n for n in FALLBACK_NAMES if n in table]
        for name in chosen:
            out[name] = f"the project's {label} for tests"


def _lines(text: str) -> list[str]:
    return [ln.split("#", 1)[0].strip() for ln in text.splitlines() if ln.split("#", 1)[0].strip()]


def declared_extras(pf: ProjectFiles) -> dict[str, list[str]]:
    """Extra -> requirement strings from pyproject.toml, setup.cfg and setup.py (first one declaring it wins)."""
    found: dict[str, list[str]] = {}
    optional = _table(_table(pf.pyproject, "project"), "optional-dependencies")
    for name, reqs in optional.items():
        found.setdefault(str(name), _as_list(reqs))
    for name, dists in _table(_table(_table(pf.pyproject, "tool"), "poetry"), "extras").items():
        found.setdefault(str(name), _as_list(dists))  # Poetry: extra -> names of optional dependencies
    cfg = pf.setup_cfg
    if cfg.has_section("options.extras_require"):
        for name in cfg.options("options.extras_require"):
            value = cfg.get("options.extras_require", name)
            found.setdefault(name, [ln for ln in value.splitlines() if ln.strip() and not ln.strip().startswith("#")])
    extras = _lenient(_setup_py_keyword, pf.text("setup.py") or "", "extras_require")
    for name, reqs in (extras if isinstance(extras, dict) else {}).items():
        found.setdefault(str(name), _as_list(reqs))
    return found


def _table(data, key: str) -> dict:
    """``data[key]`` when both are tables, else an empty one (a TOML file of another shape is no evidence)."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _module_level(tree: ast.Module):
    """The statements of a module outside functions and classes (``if``/``try``/``with`` bodies included)."""
    stack = list(tree.body)
    while stack:
        node = stack.pop(0)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield node
        for field_name in ("body", "orelse", "finalbody", "handlers"):
            stack.extend(getattr(node, field_name, None) or [])


def _setup_py_keyword(text: str, keyword: str):
    """The literal value of ``keyword=`` in setup.py's ``setup(...)`` call. A name bound at module level to a
    literal is followed (and ``name["k"] = [...]`` additions to it are applied), ``dict(k=[...])`` is a dict,
    and a value that is a bound name is that name's literal; None when not literal."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    bound: dict[str, ast.AST] = {}
    additions: dict[str, list[tuple[ast.AST, ast.AST]]] = {}
    for node in _module_level(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                bound[target.id] = node.value
            elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                additions.setdefault(target.value.id, []).append((target.slice, node.value))
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg != keyword:
                continue
            value, name = kw.value, kw.value.id if isinstance(kw.value, ast.Name) else None
            if name is not None:
                value = bound.get(name)
            result = _literal(value, bound)
            if isinstance(result, dict) and name:
                for key, item in additions.get(name, []):
                    k, v = _literal(key, bound), _literal(item, bound)
                    if isinstance(k, str) and v is not None:
                        result[k] = v
            return result
    return None


def _literal(node, bound: dict | None = None, depth: int = 0):
    if node is None or depth > 5:
        return None
    try:
        return ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, RecursionError):
        pass
    bound = bound or {}
    if isinstance(node, ast.Name) and node.id in bound:
        return _literal(bound[node.id], bound, depth + 1)
    if isinstance(node, ast.Dict):  # keep the keys whose values are literal
        out = {}
        for k, v in zip(node.keys, node.values, strict=False):
            key, value = _literal(k, bound, depth + 1), _literal(v, bound, depth + 1)
            if isinstance(key, str) and value is not None:
                out[key] = value
        return out
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict" and not node.args:
        out = {}
        for kw in node.keywords:
            value = _literal(kw.value, bound, depth + 1)
            if kw.arg and value is not None:
                out[kw.arg] = value
        return out
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):  # ["a"] + ["b"]
        left, right = _literal(node.left, bound, depth + 1), _literal(node.right, bound, depth + 1)
        if isinstance(left, list | tuple) and isinstance(right, list | tuple):
            return list(left) + list(right)
    return None


def _pep735_groups(pf: ProjectFiles) -> dict[str, list[str]]:
    """PEP 735 group -> requirement strings, ``{include-group = ...}`` expanded (cycles cut)."""
    raw = _table(pf.pyproject, "dependency-groups")

    def expand(name: str, seen: tuple) -> list[str]:
        out = []
        for item in raw.get(name) or []:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict) and isinstance(item.get("include-group"), str):
                inner = item["include-group"]
                if inner not in seen:
                    out += expand(inner, seen + (inner,))
        return out

    return {str(name): expand(name, (name,)) for name in raw}


def _is_test_env(section: str) -> bool:
    if section == "testenv":
        return True
    if not section.startswith("testenv:"):
        return False
    name = section.split(":", 1)[1].strip().lower()
    factors = re.split(r"[-_,{}]", name)
    return name not in NOT_TEST_ENVS and not any(f in NOT_TEST_ENVS for f in factors if f)


def _tox_entry(line: str) -> tuple[str | None, str]:
    """``crypto: cryptography`` -> ("crypto", "cryptography"); a plain line -> (None, line)."""
    m = _FACTOR.match(line)
    if m and "//" not in m.group(1):
        return m.group(1), m.group(2).strip()
    return None, line.strip()


def _add_install_args(args: list[str], needs: TestNeeds, why: str, *, packages: bool) -> None:
    """Arguments of one install (tox deps, nox ``session.install``): ``-r file``, ``.[x]``, requirements."""
    i = 0
    while i < len(args):
        arg = _unquote(args[i].strip())
        if arg in ("-r", "--requirement", "-c", "--constraint") and i + 1 < len(args):
            if arg in ("-r", "--requirement"):
                needs.requirement_files.setdefault(_path(args[i + 1]), why)
            i += 2
            continue
        if arg.startswith("-r") and len(arg) > 2:
            needs.requirement_files.setdefault(_path(arg[2:]), why)
        elif m := _EXTRAS_IN.search(" " + arg):
            for extra in m.group(1).split(","):
                if extra.strip():
                    needs.extras.setdefault(extra.strip(), why)
        elif packages and (req := _valid_requirement(arg)):
            needs.packages.setdefault(req, why)
        i += 1


def _unquote(text: str) -> str:
    """``"x"`` / ``'x'`` -> ``x``; a quote that belongs to the text (``x; python_version < "3.8"``) stays."""
    return text[1:-1] if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"" else text


def _path(text: str) -> str:
    text = _unquote(text.strip())
    for prefix in ("{toxinidir}/", "./"):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return text


def _expand(tox, text: str, depth: int = 0) -> str:
    """tox's ``{[section]key}`` substitutions replaced by that value (nested ones too, a few levels deep)."""
    def value(m):
        section, key = m.group(1), m.group(2)
        if depth < 4 and tox.has_option(section, key):
            return _expand(tox, tox.get(section, key), depth + 1)
        return ""
    return re.sub(r"\{\[([^\]]+)\]([\w-]+)\}", value, text)


def _from_tox(pf: ProjectFiles, needs: TestNeeds) -> None:
    tox = pf.tox
    for section in tox.sections():
        if not _is_test_env(section):
            continue
        if section != "testenv" and tox.has_option(section, "commands") \
                and not _RUNS_TESTS.search(tox.get(section, "commands")):
            continue
        where = f"tox.ini [{section}]"
        if tox.has_option(section, "extras"):
            for line in _expand(tox, tox.get(section, "extras")).splitlines():
                factor, value = _tox_entry(line)
                if factor and _not_test(factor):
                    continue
                for extra in value.replace(",", " ").split():
                    if not extra.startswith("{"):
                        needs.extras.setdefault(extra, f"{where} extras" + (f" (factor {factor})" if factor else ""))
        if tox.has_option(section, "deps"):
            for line in _expand(tox, tox.get(section, "deps")).splitlines():
                factor, value = _tox_entry(line.split("#", 1)[0])
                if factor and _not_test(factor):  # docs: sphinx
                    continue
                if value:  # one requirement per line (``pip >= 18``); a flag line is ``-r file``
                    args = value.split(None, 1) if value.startswith("-") else [value]
                    _add_install_args(args, needs, f"{where} deps" + (f" (factor {factor})" if factor else ""),
                                      packages=True)
        for key in ("commands_pre", "commands"):  # pip install lines tox runs itself
            if tox.has_option(section, key):
                for line in tox.get(section, key).splitlines():
                    factor, value = _tox_entry(line)
                    if not (factor and _not_test(factor)):
                        _pip_line(value, needs, f"{where} {key}")
        if tox.has_option(section, "dependency_groups"):
            for line in tox.get(section, "dependency_groups").splitlines():
                _, value = _tox_entry(line)
                for group in value.replace(",", " ").split():
                    needs.groups.setdefault(group, f"{where} dependency_groups")
    toml = pf.tox_toml
    envs = [("env_run_base", _table(toml, "env_run_base"))]
    envs += [(f"env.{name}", table) for name, table in _table(toml, "env").items()
             if isinstance(table, dict) and _is_test_env(f"testenv:{name}")
             and ("commands" not in table or _RUNS_TESTS.search(str(table.get("commands"))))]
    for name, table in envs:
        where = f"tox.toml [{name}]"
        for extra in _as_list(table.get("extras")):
            needs.extras.setdefault(extra, f"{where} extras")
        for group in _as_list(table.get("dependency_groups")):
            needs.groups.setdefault(group, f"{where} dependency_groups")
        deps = _as_list(table.get("deps"))
        _add_install_args([a for d in deps for a in (d.split(None, 1) if d.startswith("-") else [d])], needs,
                          f"{where} deps", packages=True)


def _from_nox(pf: ProjectFiles, needs: TestNeeds) -> None:
    text = pf.text("noxfile.py")
    if not text:
        return
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return
    for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef)):
        names = [fn.name] + [kw.value.value for d in fn.decorator_list if isinstance(d, ast.Call)
                             for kw in d.keywords if kw.arg == "name" and isinstance(kw.value, ast.Constant)]
        if not any("test" in str(n).lower() for n in names):
            continue
        for call in (n for n in ast.walk(fn) if isinstance(n, ast.Call)):
            if isinstance(call.func, ast.Attribute) and call.func.attr == "install":
                args = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
                _add_install_args(args, needs, f"noxfile.py session {fn.name}", packages=True)


def _strings(node, depth: int = 0) -> list[str]:
    if isinstance(node, str):
        return [node]
    if depth > 20:
        return []
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v, depth + 1)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v, depth + 1)]
    return []


def _not_test(name: str) -> bool:
    """A CI file or job named for docs, lint, release, ... (``docs.yml``, job ``build-docs``)."""
    words = [w for w in re.split(r"[^a-z0-9]+", name.lower()) if w]
    return name.lower() in NOT_TEST_ENVS or any(w in NOT_TEST_ENVS for w in words)


def _ci_chunks(path: str, text: str) -> list[str]:
    """The command texts of a CI file's test jobs (GitHub Actions: jobs not named for docs, lint, ...)."""
    if _not_test(path.rsplit("/", 1)[-1].rsplit(".", 1)[0]):
        return []
    try:
        data = yaml.safe_load(text)
    except Exception:  # noqa: BLE001 - YAML that PyYAML cannot read (bad dates, recursive aliases): plain text
        return [text]
    jobs = data.get("jobs") if isinstance(data, dict) else None
    if isinstance(jobs, dict):
        return [c for job_id, job in jobs.items() if not _not_test(str(job_id)) and not (
            isinstance(job, dict) and _not_test(str(job.get("name") or ""))) for c in _strings(job)]
    return _strings(data)


_PIP_FLAGS_WITH_VALUE = {"-r", "--requirement", "-c", "--constraint", "-i", "--index-url", "--extra-index-url",
                         "-f", "--find-links", "--only-binary", "--no-binary", "--python", "-t", "--target"}


def _pip_line(line: str, needs: TestNeeds, why: str) -> None:
    """What one ``pip install``/``uv pip install`` command line installs: ``-r`` files, ``.[x]`` extras and
    named requirements (flags and their values skipped; ``{...}`` substitutions too)."""
    m = re.search(r"\b(?:pip3?|uv\s+pip|python3?\s+-m\s+pip)\s+install\b(.*)$", line)
    if not m:
        return
    words, i = m.group(1).split(), 0
    args = []
    while i < len(words):
        word = words[i]
        if word in ("-r", "--requirement"):
            args += words[i:i + 2]
            i += 2
        elif word in _PIP_FLAGS_WITH_VALUE:
            i += 2
        elif word.startswith("-") and not word.startswith("-r") or "{" in word or word in ("&&", "||", ";", "|"):
            if word in ("&&", "||", ";", "|"):
                break
            i += 1
        else:
            args.append(word)
            i += 1
    _add_install_args(args, needs, why, packages=True)


def _from_ci(pf: ProjectFiles, needs: TestNeeds) -> None:
    for path, text in sorted(pf.ci_texts().items()):
        for chunk in _ci_chunks(path, text):
            for line in chunk.splitlines():
                if not _PIP_LINE.search(line):
                    continue
                why = f"CI {path}"
                for m in _EXTRAS_IN.finditer(" " + line):
                    for extra in m.group(1).split(","):
                        if extra.strip():
                            needs.extras.setdefault(extra.strip(), why)
                for flag, out in (("--extra", needs.extras), ("--group", needs.groups)):
                    for m in re.finditer(rf"{flag}[=\s]+['\"]?([\w.-]+)", line):
                        out.setdefault(m.group(1), why)
                for m in re.finditer(r"(?:-r|--requirement)[=\s]*['\"]?([\w./-]+\.(?:txt|in))", line):
                    needs.requirement_files.setdefault(_path(m.group(1)), why)


def _poetry_requirement(name: str, spec) -> str | None:
    """A Poetry dependency as a PEP 508 requirement (``^1.2``/``~1.2`` -> ``>=1.2``: the commit date bounds it)."""
    if canonicalize_name(name) == "python":
        return None
    version = spec.get("version") if isinstance(spec, dict) else spec
    if isinstance(spec, dict) and ("path" in spec or "git" in spec or "url" in spec):
        return None
    extras = f"[{','.join(spec['extras'])}]" if isinstance(spec, dict) and spec.get("extras") else ""
    if not isinstance(version, str) or version.strip() in ("", "*"):
        return _valid_requirement(name + extras)
    version = version.strip()
    if version[0] in "^~":
        version = ">=" + version.lstrip("^~=")
    elif version[0].isdigit():
        version = "==" + version
    return _valid_requirement(f"{name}{extras}{version}")


def _from_tool_groups(pf: ProjectFiles, needs: TestNeeds) -> None:
    tool = _table(pf.pyproject, "tool")
    poetry = _table(tool, "poetry")
    tables = []
    for name, group in _table(poetry, "group").items():
        if name in TEST_NAMES + FALLBACK_NAMES and isinstance(group, dict):
            tables.append((f"pyproject.toml [tool.poetry.group.{name}.dependencies]", _table(group, "dependencies")))
    tables.append(("pyproject.toml [tool.poetry.dev-dependencies]", _table(poetry, "dev-dependencies")))
    for why, table in tables:
        for name, spec in table.items():
            if req := _poetry_requirement(str(name), spec):
                needs.packages.setdefault(req, why)
    for name, reqs in _table(_table(tool, "pdm"), "dev-dependencies").items():
        if name in TEST_NAMES + FALLBACK_NAMES:
            for req in _as_list(reqs):
                if valid := _valid_requirement(req):
                    needs.packages.setdefault(valid, f"pyproject.toml [tool.pdm.dev-dependencies] {name}")
    for name, env in _table(_table(tool, "hatch"), "envs").items():
        if name not in ("default", "hatch-test") + TEST_NAMES or not isinstance(env, dict):
            continue
        why = f"pyproject.toml [tool.hatch.envs.{name}]"
        for key in ("dependencies", "extra-dependencies"):
            for req in _as_list(env.get(key)):
                if valid := _valid_requirement(req):
                    needs.packages.setdefault(valid, why)
        for extra in _as_list(env.get("features")):
            needs.extras.setdefault(extra, f"{why} features")
