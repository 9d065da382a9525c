"""How a Go module is installed in its task image: the toolchain image ``r2e/go:<version>`` (built by
``scripts/setup_docker.sh`` from this host's Go; ``RepoEnvConfig.toolchain`` picks another), every module of the
build list downloaded from the Go module proxy at image build time (``go mod download``: the versions are the
ones ``go.mod`` requires and ``go.sum`` pins, minimal version selection needs no date), and the build cache warmed
by compiling every package's tests once (``go test -run '^$'``), in ``/opt/r2e/gocache``, which the grader copies
and never trusts beyond its recorded manifest."""

import shlex

from repo2env.core import gitrepo
from repo2env.core.records import InstallRecipe, RecipePart
from repo2env.graders.go_runner import DEFAULT_TOOLCHAIN
from repo2env.languages.go.files import go_directive
from repo2env.languages.toolchain import host_version

DEFAULT_GO = "1.26"


def host_go_version() -> str:
    """``major.minor`` of this host's Go (what ``scripts/setup_docker.sh`` builds ``r2e/go`` from), else
    ``DEFAULT_GO``."""
    return host_version(("go", "env", "GOVERSION"), r"go(\d+\.\d+)", DEFAULT_GO)


def image_for(version: str) -> str:
    """The toolchain image of Go ``version`` (``major.minor``)."""
    return f"r2e/go:{version}"


def build_env() -> dict[str, str]:
    """The environment of the install (and of the image): the module cache where the grader expects it, the
    proxy as the only source, no checksum database (go.sum is still checked), no cgo. The warm build cache is
    written by the install's own command only: the agent's go commands use go's default cache, never the one the
    grader copies (which its manifest records whole)."""
    gopath = DEFAULT_TOOLCHAIN["gopath"]
    return {"GOPATH": gopath, "GOMODCACHE": f"{gopath}/pkg/mod",
            "GOFLAGS": "-mod=readonly -buildvcs=false", "GOTOOLCHAIN": "local", "GOSUMDB": "off",
            "GOPROXY": "https://proxy.golang.org", "CGO_ENABLED": "0", "GOTELEMETRY": "off"}


def detect_recipe(repo_path: str, commit: str, override) -> InstallRecipe:
    """The recipe at ``commit`` (module docstring). ``override.install`` replaces the commands, ``override.env``
    adds variables, ``override.toolchain`` picks the Go version. Raises ``GitError`` for a missing commit."""
    go_mod = gitrepo.show_file(repo_path, commit, "go.mod") or ""
    version = (override.toolchain if override and override.toolchain else None) or host_go_version()
    folders = " ".join(shlex.quote(f) for f in (f"{DEFAULT_TOOLCHAIN['gopath']}/pkg/mod", DEFAULT_TOOLCHAIN["gocache"]))
    commands = (tuple(override.install) if override and override.install else (
        f"mkdir -p {folders}",
        "go mod download",
        # the tests of every package compiled once: the build cache the runs and the grader start from
        f"(GOCACHE={shlex.quote(DEFAULT_TOOLCHAIN['gocache'])} go test -count=1 -vet=off -run '^$' ./... "
        ">/dev/null 2>&1 || true)",
        # what the install may have written into the tree is not the agent's change
        "git checkout -q -- go.mod $(git ls-files go.sum)",
        f"chmod -R a+rX {shlex.quote(DEFAULT_TOOLCHAIN['gopath'])} {shlex.quote(DEFAULT_TOOLCHAIN['gocache'])}"))
    wanted = go_directive(go_mod)
    parts = (RecipePart(kind="toolchain", name=image_for(version),
                        why=f"go.mod asks for go {'.'.join(map(str, wanted)) if wanted else '(unset)'}"),)
    env = dict(build_env(), **(override.env if override else {}))
    return InstallRecipe(base_image=image_for(version), commands=commands, env=env, source="detected:go.mod",
                         plan={"go": version}, rung=f"go {version}", parts=parts)
