"""How a JavaScript/TypeScript repository is installed in its task image: the Node.js image ``r2e/node:<major>``
(built by ``scripts/setup_docker.sh`` from this host's Node.js; ``RepoEnvConfig.toolchain`` picks another), then
``npm ci`` when ``package-lock.json`` pins the tree, else ``npm install --before=<the base commit's date>`` (npm
resolves every range as of that moment); dependencies are fetched from the npm registry at image build time,
never at grading time."""

from repo2env.core import gitrepo
from repo2env.core.records import InstallRecipe, RecipePart
from repo2env.languages.toolchain import host_version

DEFAULT_NODE = "20"


def host_node_major() -> str:
    """The major version of this host's Node.js (what ``scripts/setup_docker.sh`` builds ``r2e/node`` from),
    else ``DEFAULT_NODE``."""
    return host_version(("node", "--version"), r"v(\d+)\.", DEFAULT_NODE)


def image_for(major: str) -> str:
    """The Node.js image of ``major``."""
    return f"r2e/node:{major}"


def detect_recipe(repo_path: str, commit: str, override, project) -> InstallRecipe:
    """The recipe at ``commit`` for ``project`` (``files.Project``). ``override.install`` replaces the commands,
    ``override.env`` adds variables, ``override.toolchain`` picks the Node.js major. Raises ``GitError``."""
    major = (override.toolchain if override and override.toolchain else None) or host_node_major()
    date = gitrepo.commit_date_iso(repo_path, commit) if project.manager != "npm" else None
    if project.manager == "npm":
        install, why = "npm ci --no-audit --no-fund", "package-lock.json pins the tree"
    else:
        install = f"npm install --no-audit --no-fund --before={date}"
        why = f"no package-lock.json: ranges resolved as of the base commit ({date})"
    commands = tuple(override.install) if override and override.install else (
        install,
        # what the install wrote is not the agent's change
        "printf 'node_modules/\\n' >> .git/info/exclude",
        "(git ls-files --error-unmatch package-lock.json >/dev/null 2>&1 || "
        "printf 'package-lock.json\\n' >> .git/info/exclude)",
        "mkdir -p node_modules && chmod -R a+rX node_modules")  # a package with no dependency has none
    env = {"NODE_EXTRA_CA_CERTS": "/etc/ssl/certs/ca-certificates.crt", "npm_config_update_notifier": "false",
           "npm_config_fund": "false", "CI": "true", **(override.env if override else {})}
    parts = (RecipePart(kind="toolchain", name=image_for(major), why="Node.js of this machine"),
             RecipePart(kind="config", name=project.runner or "", why="the test runner package.json lists"),
             RecipePart(kind="requirements", name=install.split(" --")[0], why=why))
    return InstallRecipe(base_image=image_for(major), commands=commands, env=env, exclude_newer=date,
                         source="detected:package.json", plan={"node": major, "runner": project.runner},
                         rung=f"node {major}, {project.runner}", parts=parts)
