"""Shared fixtures: real git repositories built by the tests, and a real Docker engine.

Docker tests use the ``docker_client`` fixture. Without an engine they are skipped on a developer machine and
FAIL under ``CI=true`` (CI must never pass without having run them).
"""

import os
import subprocess
from pathlib import Path

import pytest

from repo2env.sources.demo_repo import build_demo_repo
from tests.helpers.repos import git

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _own_env_memory(tmp_path, monkeypatch):
    """Each test has its own cache folder (clones, the environment memory): what one test learned about a
    repository's environment never changes how another builds it."""
    monkeypatch.setenv("R2E_CACHE_DIR", str(tmp_path / "r2e-cache"))


@pytest.fixture(autouse=True)
def _no_spare_left():
    """Containers started ahead or being removed in the background (``environment.spares``) are gone when a
    test ends, as they are when a ``generate`` does: a test that counts containers sees only its own."""
    yield
    from repo2env.environment import spares

    spares.settle()


@pytest.fixture
def new_repo(tmp_path):
    """A factory for empty git repositories on branch main."""
    count = iter(range(1000))

    def make(name: str = "repo") -> Path:
        path = tmp_path / f"{name}-{next(count)}"
        path.mkdir()
        git(path, "init", "-q", "--initial-branch=main")
        return path
    return make


@pytest.fixture(scope="session")
def demo_repo(tmp_path_factory) -> Path:
    """The demo repository (repo2env.sources.demo_repo), built once per session. Treat as read-only."""
    return build_demo_repo(tmp_path_factory.mktemp("demo") / "calc-demo")


@pytest.fixture(scope="session")
def docker_client():
    """A live Docker client with the base image present; skip (or fail under CI=true) otherwise."""
    from repo2env.core.errors import DockerUnavailable
    from repo2env.environment.containers import docker_client as connect
    from repo2env.environment.images import require_base_image

    try:
        client = connect()
        require_base_image(client)
    except DockerUnavailable as exc:
        if os.environ.get("CI"):
            pytest.fail(f"Docker tests cannot run under CI: {exc}")
        pytest.skip(f"Docker not available: {exc}")
    return client



@pytest.fixture
def fake_github(tmp_path, demo_repo):
    """A started fake GitHub serving the demo repository as ``org/calc`` (``tests.helpers.github_server.demo_server``),
    with ``GITHUB_TOKEN`` set to the token it requires."""
    from tests.helpers.github_server import TOKEN, demo_server

    server = demo_server(demo_repo, tmp_path / "server").start()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GH_ENTERPRISE_TOKEN", TOKEN)
        mp.delenv("GITHUB_ENTERPRISE_TOKEN", raising=False)
        yield server
    server.stop()


@pytest.fixture(scope="session")
def demo_generated(docker_client, demo_repo, tmp_path_factory):
    """``generate pr_runtime`` on the local demo repository, once per session: (out, summary)."""
    from repo2env.pipeline import GenerateOptions
    from repo2env.run.generate import generate

    out = tmp_path_factory.mktemp("gen") / "tasks"
    summary = generate("pr_runtime", str(demo_repo), GenerateOptions(probes=False, out=out))
    return out, summary


@pytest.fixture(scope="session")
def demo_generated_13(docker_client, demo_repo, tmp_path_factory):
    """``generate pr_runtime --format harbor-1.3`` on the demo repository, once per session: (out, summary)."""
    from repo2env.pipeline import GenerateOptions
    from repo2env.run.generate import generate

    out = tmp_path_factory.mktemp("gen13") / "tasks"
    summary = generate("pr_runtime", str(demo_repo), GenerateOptions(probes=False, out=out, format="harbor-1.3"))
    return out, summary


@pytest.fixture(scope="session")
def demo_generated_14(docker_client, demo_repo, tmp_path_factory):
    """``generate pr_runtime --format harbor-1.4`` on the demo repository, once per session: (out, summary)."""
    from repo2env.pipeline import GenerateOptions
    from repo2env.run.generate import generate

    out = tmp_path_factory.mktemp("gen14") / "tasks"
    summary = generate("pr_runtime", str(demo_repo), GenerateOptions(probes=False, out=out, format="harbor-1.4"))
    return out, summary


@pytest.fixture(scope="session")
def harbor():
    """The real Harbor's ``harbor`` program (tests/helpers/harbor.py)."""
    from tests.helpers.harbor import harbor_exe

    return harbor_exe()


@pytest.fixture(scope="session")
def registry(tmp_path_factory):
    """A real registry (Debian's docker-registry, scripts/setup_registry.sh) on 127.0.0.1, storage in a temporary
    folder, for the session: yields ``127.0.0.1:<port>``. Skipped without the binary, failing under CI=true."""
    import shutil
    import socket
    import time
    import urllib.request

    exe = shutil.which("docker-registry")
    if exe is None:
        if os.environ.get("CI"):
            pytest.fail("docker-registry is not installed; scripts/test.sh runs scripts/setup_registry.sh")
        pytest.skip("docker-registry not installed; run bash scripts/setup_registry.sh")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    root = tmp_path_factory.mktemp("registry")
    (root / "config.yml").write_text(
        f"version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {root / 'data'}\n"
        f"  delete:\n    enabled: true\nhttp:\n  addr: 127.0.0.1:{port}\n")
    proc = subprocess.Popen([exe, "serve", str(root / "config.yml")], stdout=subprocess.DEVNULL,
                            stderr=open(root / "log", "w"))
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/", timeout=1)
            break
        except OSError:
            time.sleep(0.1)
    else:
        proc.kill()
        pytest.fail(f"docker-registry did not answer: {(root / 'log').read_text()[-500:]}")
    yield f"127.0.0.1:{port}"
    proc.terminate()
    proc.wait(timeout=10)
