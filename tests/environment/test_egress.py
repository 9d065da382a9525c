"""The egress guard per language (repo2env/environment/egress.py): each task's compose file blocks the code forge
and its own language's package registries, and the host map read back from the file is the one written."""

import yaml

from repo2env import languages
from repo2env.bundles.stage import BundleStage
from repo2env.environment import egress


def test_each_language_blocks_its_own_registries_and_the_forge(tmp_path):
    seen = {}
    for name in ("python", "javascript", "go", "rust", "java"):
        hosts = egress.guard_hosts(languages.load(name))
        assert set(egress.SOURCE_HOSTS) <= set(hosts) and set(hosts.values()) == {"0.0.0.0"}
        seen[name] = set(hosts) - set(egress.SOURCE_HOSTS)
    assert "pypi.org" in seen["python"] and "registry.npmjs.org" in seen["javascript"]
    assert "proxy.golang.org" in seen["go"] and "index.crates.io" in seen["rust"]
    assert "repo.maven.apache.org" in seen["java"]
    assert not seen["python"] & seen["javascript"]  # a registry is blocked only for its own language


def test_the_compose_file_round_trips(tmp_path):
    stage = BundleStage(tmp_path, "local__x-1")
    written = egress.stage_compose(stage, languages.load("rust"))
    data = yaml.safe_load((stage.root / "environment" / "docker-compose.yaml").read_text())
    assert data["services"]["main"]["init"] is True
    assert egress.bundle_hosts(stage.root) == written and "crates.io" in written
    assert egress.guard_hosts(None) == {h: "0.0.0.0" for h in egress.SOURCE_HOSTS}
