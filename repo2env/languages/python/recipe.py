"""Install recipes for a Python repository *at its base commit* (never HEAD's), one per rung of the ladder.

A recipe is one ``uv pip install`` command resolved as of the base commit's date (``--exclude-newer``, field notes
"Environments across history") with an editable install, so the package imports from ``/workspace``, plus what
the tests need (``needs``: extras, dependency groups, requirements files, packages, each with why) on the Python
``versions`` chooses, with ``tooling``'s floors. ``rungs`` lists the plans to try in order: the chosen Python,
then it with the build tools floored, then the next Python down (the fallback ladder); ``detect_recipe`` turns
one plan into an ``InstallRecipe``. A plan is a dict (``python``, ``floor_build_tools``, and ``add``: parts the
feedback loop or the setup agent added, kind -> {name: why}); it is what the environment memory stores. A
per-repository entry in the environment config file overrides detection.
"""

import configparser
import posixpath
import re
import shlex
import tomllib
from functools import lru_cache

from repo2env.core import gitrepo
from repo2env.core.records import InstallRecipe, RecipePart, RepoEnvConfig
from repo2env.languages.python import needs as needs_mod
from repo2env.languages.python import tooling, versions
from repo2env.languages.python.project import ProjectFiles

OVERRIDES_FILE = "/tmp/r2e-overrides.txt"  # uv's --overrides file of the test-tooling floor, written by the recipe
MAX_PYTHONS = 3  # Pythons on the ladder per base commit (each with and without the build tools floored)
DEFAULT_ENV = {"UV_LINK_MODE": "copy", "PIP_NO_INPUT": "1"}
# Versioned-from-git projects (setuptools_scm, hatch-vcs) cannot see tags in the scrubbed copy: the project (and
# only the project: a dependency built from an sdist keeps its own version) gets a pretend version through
# setuptools_scm's per-distribution variable, SETUPTOOLS_SCM_PRETEND_VERSION_FOR_<NAME>, NAME the distribution's
# name upper-cased with runs of "-", "_" and "." as "_" (setuptools_scm's rule). A project whose name cannot be
# read falls back to the global variable.
PRETEND_VERSION = "0.0.0"


def pretend_version_env(name: str | None) -> dict[str, str]:
    """The environment that gives the project ``name`` (None: unknown) a version without git tags."""
    if not name:
        return {"SETUPTOOLS_SCM_PRETEND_VERSION": PRETEND_VERSION}
    return {"SETUPTOOLS_SCM_PRETEND_VERSION_FOR_" + re.sub(r"[-_.]+", "_", name).upper(): PRETEND_VERSION}


PIN_FREE_PREFIX = ".r2e-"  # a requirements file rewritten without the project's own pin, beside the original
_INCLUDE = re.compile(r"^(\s*(?:-r|-c|--requirement|--constraint)(?:\s+|=))(\S+)(.*)$")
_REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:[=<>!~;\[@(]|$)")


def _normal(name: str) -> str:
    """A distribution name as PEP 503 compares them: runs of ``-``, ``_`` and ``.`` as one ``-``, lower case."""
    return re.sub(r"[-_.]+", "-", name).lower()


def without_own_pins(read, paths, name: str) -> dict[str, str]:
    """Requirements files (``paths``, and the ones they include with ``-r``/``-c``; ``read``: path -> its text at
    the commit, or None) rewritten without the lines
    that require the project itself: path -> the new text, empty when none does. A file that pip-compile froze
    for a project's docs or development (MarkupSafe's ``requirements/dev.txt`` holds ``markupsafe==2.1.5``, by
    way of Jinja) conflicts with the editable install of the project's own code, of another version: uv then
    finds no version of the project that satisfies both. A line continued with ``\\`` (``--hash`` options) goes
    with its continuation; an include of a rewritten file points to its copy (``PIN_FREE_PREFIX``, beside it)."""
    own, out, seen = _normal(name), {}, set()

    def rewrite(path: str) -> bool:  # True when the file (or one it includes) changed
        if path in seen:
            return path in out
        seen.add(path)
        text = read(path)
        if text is None:
            return False
        kept, changed, logical = [], False, []
        for line in text.splitlines():
            logical.append(line)
            if line.rstrip().endswith("\\"):
                continue
            head = logical[0]
            include = _INCLUDE.match(head)
            required = _REQUIREMENT_NAME.match(head)
            if include:
                target = include.group(2)
                child = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
                if rewrite(child):
                    folder, base = posixpath.split(target)
                    logical = [include.group(1) + posixpath.join(folder, PIN_FREE_PREFIX + base) + include.group(3)]
                    changed = True
            elif required and _normal(required.group(1)) == own:
                logical, changed = [], True
            kept += logical
            logical = []
        kept += logical
        if changed:
            out[path] = "\n".join(kept) + "\n"
        return changed

    for path in paths:
        rewrite(path)
    return out


def pin_free_path(path: str) -> str:
    """Where the rewritten copy of the requirements file ``path`` is written (``without_own_pins``)."""
    folder, base = posixpath.split(path)
    return posixpath.join(folder, PIN_FREE_PREFIX + base)


def project_name(pyproject: str | None, setup_cfg: str | None, setup_py: str | None) -> str | None:
    """The distribution name from ``[project].name``, ``setup.cfg [metadata] name`` or a literal ``name=`` in
    ``setup.py`` (first found), else None."""
    if pyproject:
        try:
            project = tomllib.loads(pyproject).get("project")
            name = project.get("name") if isinstance(project, dict) else None
        except tomllib.TOMLDecodeError:
            name = None
        if isinstance(name, str) and name.strip():
            return name.strip()
    if setup_cfg:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(setup_cfg)
            if parser.has_option("metadata", "name"):
                return parser.get("metadata", "name").strip() or None
        except configparser.Error:
            pass
    if setup_py:
        m = re.search(r"""\bname\s*=\s*['"]([A-Za-z0-9][A-Za-z0-9._-]*)['"]""", setup_py)
        if m:
            return m.group(1)
    return None




@lru_cache(maxsize=64)
def project_files(repo_path: str, commit: str) -> ProjectFiles:
    """``ProjectFiles.read``, cached per (repository, commit). Raises ``GitError``."""
    return ProjectFiles.read(repo_path, commit)


@lru_cache(maxsize=64)
def test_needs(repo_path: str, commit: str) -> needs_mod.TestNeeds:
    """``needs.find`` of the commit, cached."""
    return needs_mod.find(project_files(repo_path, commit))


# The command that writes ``r2e_workspace_src.pth`` (``/workspace/src``) into the interpreter's site-packages: the
# site module adds a path file's lines to sys.path at start-up (``site``'s documentation), which PYTHONPATH,
# dropped by the grader (``graders.runtime_verifier.run_pytest``), cannot do.
SRC_PATH_FILE = ("import site; open(site.getsitepackages()[0] + '/r2e_workspace_src.pth', 'w')"
                 ".write('/workspace/src\\n')")


def rungs(repo_path, commit: str, override: RepoEnvConfig | None = None) -> tuple[list[dict], str]:
    """The plans to try for ``commit``, in order (``MAX_PYTHONS`` Pythons); and why the first Python was chosen
    (the reason there is none when the list is empty: no Python 3.8-3.13 is allowed). Per Python: the plain
    plan; newer test tooling (``tooling.NEWER_TOOLING``) when the plain one failed either way; and, for a commit
    older than the build-tool floor, the wider build-tool floor, then the build tools of the commit's era
    (``tooling.era_build_tools``: an old ``setup.py`` may use what newer setuptools removed, ``use_2to3``,
    ``setuptools.Feature``), both only when the plain one's install failed. ``"if"`` names the outcomes of the plain rung a plan is for."""
    pf = project_files(str(repo_path), commit)
    if override and override.install:
        return [{"python": override.python or versions.DEFAULT_PYTHON}], "the environment config file"
    if override and override.python:
        order, why = (override.python,), f"{override.python}: the environment config file"
    else:
        choice = versions.choose(pf)
        order, why = choice.order, choice.why
    plans = []
    named = [w for w in test_needs(str(repo_path), commit).requirement_files.values()
             if not w.startswith("test/dev")]
    for python in order[:MAX_PYTHONS]:
        plans.append({"python": python})
        if named and pf.installable():  # frozen pins of a CI or tox requirements file may not resolve: the
            # project's own metadata may
            plans.append({"python": python, "requirements": "own", "if": ["install_failed"]})
        plans.append({"python": python, "tooling": "newer", "if": ["tests_broken", "install_failed"]})
        if pf.date < tooling.BUILD_TOOL_FLOOR:
            plans.append({"python": python, "floor_build_tools": True, "if": ["install_failed"]})
            plans.append({"python": python, "dated_build_tools": True, "if": ["install_failed"]})
    return plans, why


def rung_label(plan: dict) -> str:
    """One line for a plan: ``3.11``, ``3.11, build tools floored, +extra crypto``."""
    label = [plan.get("python", "?")]
    if plan.get("floor_build_tools"):
        label.append("build tools floored")
    if plan.get("dated_build_tools"):
        label.append("build tools of the commit's era")
    if plan.get("tooling") == "newer":
        label.append("newer test tooling")
    if plan.get("requirements") == "own":
        label.append("without the requirements files CI or tox name")
    for kind, names in sorted((plan.get("add") or {}).items()):
        label += [f"+{kind} {name}" for name in sorted(names)]
    return ", ".join(label)


def _plugins(chosen_reqs: list[str]) -> list[str]:
    """Distribution names of the pytest plugins among requirement strings (floored with pytest)."""
    return sorted({name for name in map(needs_mod.distribution, chosen_reqs) if name and name.startswith("pytest-")})


def detect_recipe(repo_path, base_commit: str, override: RepoEnvConfig | None = None,
                  plan: dict | None = None) -> InstallRecipe:
    """The install recipe of ``plan`` (default: the first of ``rungs``) for ``base_commit``. Pure reading:
    raises only ``GitError`` on a missing commit."""
    pf = project_files(str(repo_path), base_commit)
    date = pf.date
    env = dict(DEFAULT_ENV, **pretend_version_env(project_name(pf.text("pyproject.toml"), pf.text("setup.cfg"),
                                                               pf.text("setup.py"))))
    found, python_why = rungs(repo_path, base_commit, override)
    if plan is None:
        plan = found[0] if found else {"python": versions.DEFAULT_PYTHON}
    python = plan["python"]
    if override and override.install:
        env.update(override.env)
        return InstallRecipe(python=python, apt_packages=tuple(override.apt_packages),
                             commands=tuple(override.install), env=env, exclude_newer=date, source="config",
                             plan=plan, rung=rung_label(plan),
                             parts=(RecipePart(kind="config", name="install", why="the environment config file"),))
    needs = test_needs(str(repo_path), base_commit)
    add = plan.get("add") or {}
    # a remembered plan may name an extra or group this commit does not declare (yet, or any more)
    extras = dict(needs.extras, **{k: v for k, v in add.get("extra", {}).items() if k in needs.declared_extras})
    groups = dict(needs.groups, **{k: v for k, v in add.get("group", {}).items() if k in needs.declared_groups})
    packages = dict(needs.packages, **add.get("package", {}))
    requirements = dict(needs.requirement_files)
    if plan.get("requirements") == "own":
        requirements = {k: v for k, v in requirements.items() if v.startswith("test/dev")}
    installable = pf.installable()
    if not installable and "requirements.txt" in pf.tree:
        requirements = {"requirements.txt": "the project's requirements (no installable package)", **requirements}
    first = found[0]["python"] if found else None
    parts = [RecipePart(kind="python", name=python, why=python_why if python == first
                        else f"{python}: the fallback ladder (a newer Python failed)")]
    args = ["uv", "pip", "install", "--system", "--exclude-newer", date]
    floor, why = (tooling.era_build_tools(python, date) if plan.get("dated_build_tools") else
                  tooling.build_tool_floor(date, bool(plan.get("floor_build_tools"))))
    args += floor
    chosen_reqs = list(packages) + [r for e in extras for r in needs.declared_extras.get(e, [])] + [
        r for g in groups for r in needs.declared_groups.get(g, [])] + [
        ln for path in requirements for ln in (pf.text(path) or "").splitlines()]
    tests_floor, overrides, tests_why = tooling.test_tool_floor(python, date, _plugins(chosen_reqs),
                                                                newer=plan.get("tooling") == "newer")
    parts += [p for p in (tests_why, why) if p is not None]
    # setuptools of an old era has no PEP 660 hook, which uv's editable install needs: that rung installs the
    # project as a wheel (for its dependencies) and removes it again, so the workspace (first on sys.path under
    # `python -m pytest`) is what the tests import.
    editable = not plan.get("dated_build_tools")
    name = project_name(pf.text("pyproject.toml"), pf.text("setup.cfg"), pf.text("setup.py"))
    if installable:
        args += (["-e"] if editable else []) + ["." + (f"[{','.join(extras)}]" if extras else "")]
        parts += [RecipePart(kind="extra", name=e, why=w) for e, w in extras.items()]
    else:
        env["PYTHONPATH"] = "/workspace/src:/workspace" if any(f.startswith("src/") for f in pf.tree) else "/workspace"
    for group, why_group in groups.items():
        args += ["--group", group]
        parts.append(RecipePart(kind="group", name=group, why=why_group))
    read = lambda path: pf.text(path) or gitrepo.show_file(repo_path, base_commit, path)  # noqa: E731
    rewritten = without_own_pins(read, list(requirements), name) if installable and name else {}
    for req, why_req in requirements.items():
        args += ["-r", pin_free_path(req) if req in rewritten else req]
        parts.append(RecipePart(kind="requirements", name=req, why=why_req + (
            f" (without its pin of {name} itself)" if req in rewritten else "")))
    for req, why_pkg in packages.items():
        args.append(req)
        parts.append(RecipePart(kind="package", name=req, why=why_pkg))
    args += tests_floor  # the floor's flags and pytest itself
    commands = [shlex.join(args)]
    if overrides:
        args += ["--overrides", OVERRIDES_FILE]
        commands = ["printf '%s\\n' " + " ".join(shlex.quote(o) for o in overrides) + f" > {OVERRIDES_FILE}",
                    shlex.join(args)]
    if rewritten:  # written before the install, removed after it: the workspace stays the commit's
        commands = [shlex.join(["printf", "%s\\n", *text.splitlines()]) + " > " + shlex.quote(pin_free_path(path))
                    for path, text in sorted(rewritten.items())] + commands + [
            shlex.join(["rm", "-f"] + [pin_free_path(p) for p in sorted(rewritten)])]
    if installable and not editable and name:
        commands.append(shlex.join(["uv", "pip", "uninstall", "--system", name]))
    if any(f.startswith("src/") for f in pf.tree) and (not installable or not editable):
        # a src layout that is not installed (editable) is importable from the workspace only through sys.path:
        # the grader runs pytest without the image's PYTHONPATH, so a path file in site-packages puts it there
        commands.append(shlex.join(["python3", "-c", SRC_PATH_FILE]))
    apt = tuple(override.apt_packages) if override else ()
    apt += tuple(a for a in (add.get("apt") or {}) if a not in apt)
    if override:
        env.update(override.env)
    env.update((add.get("env") or {}))
    whys = [part.why for part in parts]
    used = [p for p in ("pyproject.toml", "setup.cfg", "setup.py") if p in pf.tree] + [
        p for p in sorted(pf.texts) if p not in ("pyproject.toml", "setup.cfg", "setup.py")
        and (p in requirements or any(p in w for w in whys))]
    return InstallRecipe(python=python, apt_packages=apt, commands=tuple(commands), env=env, exclude_newer=date,
                         source="detected:" + ",".join(used or ["none"]), plan=plan,
                         rung=rung_label(plan), parts=tuple(parts))


_DEBIAN_NAME = re.compile(r"^[a-z0-9][a-z0-9+.-]+$")
_ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")


def plan_from_proposal(plan: dict, proposal: dict) -> dict | None:
    """``plan`` changed as a setup agent proposes (``PythonLanguage.plan_from_proposal``); None when the proposal
    holds nothing valid and new."""
    from packaging.requirements import InvalidRequirement, Requirement

    why = str(proposal.get("why") or "the setup agent's proposal")[:200]
    found: dict[str, dict[str, str]] = {}
    new = {k: v for k, v in plan.items() if k != "if"}  # tried for what it proposes, whatever came before
    python = str(proposal.get("python") or "")
    if python in versions.PYTHONS and python != plan.get("python"):
        new["python"] = python
    for key, kind in (("extras", "extra"), ("groups", "group"), ("packages", "package"), ("apt_packages", "apt")):
        for name in proposal.get(key) or []:
            name = str(name).strip()
            if kind == "package":
                try:
                    Requirement(name)
                except InvalidRequirement:
                    continue
            elif kind == "apt" and not _DEBIAN_NAME.match(name):
                continue
            elif kind in ("extra", "group") and not re.match(r"^[\w.-]+$", name):
                continue
            found.setdefault(kind, {})[name] = why
    env = {str(k): str(v) for k, v in (proposal.get("env") or {}).items() if _ENV_NAME.match(str(k))}
    if env:
        found["env"] = env
    result = merge_plan(new, found) if found else new
    return result if result != plan else None


def merge_plan(plan: dict, found: dict[str, dict[str, str]]) -> dict:
    """``plan`` with the parts of ``found`` (kind -> {name: why}) added to its ``add`` (and without its ``"if"``:
    the new plan is tried for what it adds, whatever the rung before it did)."""
    add = {kind: dict(names) for kind, names in (plan.get("add") or {}).items()}
    for kind, names in found.items():
        add.setdefault(kind, {}).update(names)
    return {**{k: v for k, v in plan.items() if k != "if"}, "add": add}
