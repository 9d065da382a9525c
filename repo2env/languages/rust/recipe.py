"""How a cargo package or workspace is installed in its task image: the toolchain image ``r2e/rust:<version>``
(built by ``scripts/setup_docker.sh`` from this host's stable Rust with gcc for linking; ``RepoEnvConfig.toolchain``
picks another), the crates ``Cargo.lock`` pins fetched from crates.io at image build time (``cargo fetch
--locked``; a base commit without a lockfile gets one resolved at build time, ``rust-version``-aware, kept in
``/opt/r2e/cargo-lock`` for the grader: stable cargo cannot resolve as of a date), and the target folder warmed
by compiling every test target once (``cargo test --no-run``; ``--all-features`` when the crate has features and
that builds, recorded in ``/opt/r2e/cargo-lock/features`` so that every run and the grader compile the same way)
into ``/opt/r2e/cargo-target``, which the grader copies and never trusts beyond its recorded manifest."""

import re
import shlex

from repo2env.core import gitrepo
from repo2env.core.records import InstallRecipe, RecipePart
from repo2env.graders.rust_runner import ALL_FEATURES, BUILD_ENV, DEFAULT_TOOLCHAIN, FEATURES_FILE
from repo2env.languages.toolchain import host_version

DEFAULT_RUST = "1.95"


def host_rust_version() -> str:
    """``major.minor`` of this host's ``rustc`` (what ``scripts/setup_docker.sh`` builds ``r2e/rust`` from), else
    ``DEFAULT_RUST``."""
    return host_version(("rustc", "--version"), r"rustc (\d+\.\d+)", DEFAULT_RUST)


def has_features(manifest: str) -> bool:
    """True when the root ``Cargo.toml`` text declares a ``[features]`` table (optional code whose tests only
    compile with it on)."""
    return re.search(r"^\s*\[features\]\s*$", manifest, re.MULTILINE) is not None


def image_for(version: str) -> str:
    """The toolchain image of Rust ``version`` (``major.minor``)."""
    return f"r2e/rust:{version}"


def build_env() -> dict[str, str]:
    """The environment of the install (and of the image): cargo's home where the grader expects the registry,
    the profile settings every run uses (``rust_runner.BUILD_ENV``), resolution that keeps to the package's
    ``rust-version``. The warm target folder is written by the install's own command only: the agent's cargo
    builds into the workspace's ``target``, never the folder the grader copies."""
    return dict(BUILD_ENV, CARGO_HOME=DEFAULT_TOOLCHAIN["cargo_home"],
                CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS="fallback", CARGO_NET_RETRY="5")


def detect_recipe(repo_path: str, commit: str, override) -> InstallRecipe:
    """The recipe at ``commit`` (module docstring). ``override.install`` replaces the commands, ``override.env``
    adds variables, ``override.toolchain`` picks the Rust version. Raises ``GitError`` for a missing commit."""
    locked = gitrepo.show_file(repo_path, commit, "Cargo.lock") is not None
    features = has_features(gitrepo.show_file(repo_path, commit, "Cargo.toml") or "")
    target = shlex.quote(DEFAULT_TOOLCHAIN["target"])
    version = (override.toolchain if override and override.toolchain else None) or host_rust_version()
    tc = DEFAULT_TOOLCHAIN
    folders = " ".join(shlex.quote(tc[k]) for k in ("cargo_home", "target", "lock"))
    lock_dir = shlex.quote(tc["lock"])
    commands = (tuple(override.install) if override and override.install else (
        f"mkdir -p {folders}",
        *(() if locked else ("cargo generate-lockfile", f"cp Cargo.lock {lock_dir}/Cargo.lock")),
        "cargo fetch --locked",
        # every test target compiled once: the target folder the runs and the grader start from; a crate with
        # features is compiled with all of them when that builds (tests behind a feature run too), and the
        # choice is recorded for the runs and the grader (rust_runner.FEATURES_FILE)
        *((f"(CARGO_TARGET_DIR={target} cargo test --no-run --workspace --no-fail-fast --frozen --all-features "
           f">/dev/null 2>&1 && echo {ALL_FEATURES} > {lock_dir}/{FEATURES_FILE} || true)",) if features else ()),
        f"(test -s {lock_dir}/{FEATURES_FILE} || CARGO_TARGET_DIR={target} cargo test --no-run --workspace "
        "--no-fail-fast --frozen >/dev/null 2>&1 || true)",
        # what the install may have written into the tree is not the agent's change
        "git checkout -q -- $(git ls-files Cargo.toml '*/Cargo.toml' Cargo.lock)",
        "rm -f \"$CARGO_HOME/.package-cache\" \"$CARGO_HOME/.package-cache-mutate\" \"$CARGO_HOME/.global-cache\"",
        f"chmod -R a+rX {folders}"))
    parts = (RecipePart(kind="toolchain", name=image_for(version), why="Cargo.toml"),
             RecipePart(kind="config", name="Cargo.lock",
                        why="the base commit's lockfile" if locked else "resolved at image build time (none "
                                                                        "committed)"))
    env = dict(build_env(), **(override.env if override else {}))
    return InstallRecipe(base_image=image_for(version), commands=commands, env=env, source="detected:Cargo.toml",
                         plan={"rust": version, "locked": locked, "features": features}, rung=f"rust {version}",
                         parts=parts)
