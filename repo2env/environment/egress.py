"""The egress guard: hosts that serve a published fix resolve to ``0.0.0.0`` in the task's container. Harbor merges
the bundle's ``environment/docker-compose.yaml`` into its compose project, so the map holds for the agent's whole
session, while the model API, the agent's own installer and Debian's apt stay reachable.

Blocked: the code forge a merged pull request is published on (``SOURCE_HOSTS``: ``git fetch`` of the fix, its raw
files and archives) and the task language's package registries (its plugin's ``registry_hosts``): a download of
the released fix through the language's package manager, and the sites that serve or render a package's published
source. A language plugin without ``registry_hosts`` gets the forge only. Generation-time test runs use the same
map (``stage_compose`` returns it), so a task whose tests need one of these hosts fails before it is kept, not in
the agent's hands.
"""

from pathlib import Path

import yaml

from repo2env.core import templates

SOURCE_HOSTS = ("github.com", "www.github.com", "api.github.com", "codeload.github.com",
                "raw.githubusercontent.com", "objects.githubusercontent.com", "gist.github.com")
BLOCKED = "0.0.0.0"


def guard_hosts(language) -> dict[str, str]:
    """The guard's ``extra_hosts`` (host name -> address) for a task of ``language`` (a plugin, or None for the
    forge only): its ``registry_hosts`` first, then ``SOURCE_HOSTS``, each once."""
    names = tuple(getattr(language, "registry_hosts", ()) or ()) + SOURCE_HOSTS
    return {name: BLOCKED for name in dict.fromkeys(names)}


def compose_text(hosts: dict[str, str]) -> str:
    """``environment/docker-compose.yaml`` with ``hosts`` as the ``main`` service's ``extra_hosts`` (the template
    ``docker-compose.yaml``, ``init: true``)."""
    lines = "\n".join(f'      - "{name}:{address}"' for name, address in hosts.items())
    return templates.render("docker-compose.yaml", extra_hosts=lines)


def stage_compose(stage, language) -> dict[str, str]:
    """Write ``environment/docker-compose.yaml`` for a task of ``language`` into ``stage`` (a ``BundleStage``).
    Returns its host map, for the generation-time runs."""
    hosts = guard_hosts(language)
    stage.write_text("environment/docker-compose.yaml", compose_text(hosts))
    return hosts


def bundle_hosts(bundle: Path) -> dict[str, str]:
    """``extra_hosts`` of the ``main`` service in ``bundle/environment/docker-compose.yaml`` (empty when the file
    is absent). Raises ``yaml.YAMLError`` for a file that is not YAML."""
    compose = bundle / "environment" / "docker-compose.yaml"
    if not compose.is_file():
        return {}
    data = yaml.safe_load(compose.read_text()) or {}
    hosts = ((data.get("services") or {}).get("main") or {}).get("extra_hosts") or []
    if isinstance(hosts, dict):
        return {str(k): str(v) for k, v in hosts.items()}
    return dict(h.rsplit(":", 1) for h in hosts)
