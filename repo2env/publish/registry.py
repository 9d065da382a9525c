"""Pushing task images to a container registry with the docker SDK, by digest.

``push_image`` tags a local image as ``<registry>/<name>:<tag>`` and pushes it unless the registry already holds
that tag with the image's own digest. The engine sends only layers the registry lacks ("Layer already exists"),
so layers shared between tasks (the base and bootstrap layers of one repository) travel once. The result is the
pinned reference ``<registry>/<name>@sha256:…`` (a registry manifest digest, Docker's content address).

Credentials come from the docker config (``~/.docker/config.json``, as ``docker login`` writes it) unless
``RegistryAuth`` carries a user name and password; they are never logged or written anywhere.
"""

import re
from dataclasses import dataclass, field

import docker
import docker.errors

from repo2env.core.errors import InputError, R2EError

_REGISTRY = re.compile(r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*$")


class PushError(R2EError):
    """A registry refused an image, or an image to push is not on this machine."""

    exit_code = 1


@dataclass(frozen=True)
class RegistryAuth:
    """``--registry-username`` / ``--registry-password-stdin``; None fields: the docker config decides."""

    username: str | None = None
    password: str | None = field(default=None, repr=False)

    def config(self) -> dict | None:
        """The docker SDK ``auth_config``, or None to let the docker config decide."""
        if self.username is None:
            return None
        return {"username": self.username, "password": self.password or ""}


@dataclass
class PushStats:
    """What the pushes did: images pushed or found already there, layers sent or already present."""

    images_pushed: int = 0
    images_present: int = 0
    layers_pushed: int = 0
    layers_present: int = 0

    def describe(self) -> str:
        """One line for the push summary."""
        return (f"{self.images_pushed} image(s) pushed, {self.images_present} already in the registry; "
                f"{self.layers_pushed} layer(s) sent, {self.layers_present} already there")


def check_registry(registry: str) -> str:
    """``registry`` without a trailing slash, e.g. ``localhost:5000/r2e`` or ``ghcr.io/acme/r2e``.
    Raises ``InputError`` when it is not a registry host with an optional repository path."""
    value = registry.strip().rstrip("/")
    host = value.split("/", 1)[0]
    if not _REGISTRY.match(value) or not ("." in host or ":" in host or host == "localhost"):
        raise InputError(f"--registry {registry!r}: expected HOST[:PORT]/PATH, e.g. localhost:5000/r2e or "
                         "ghcr.io/acme/r2e (lower case, no scheme)")
    return value


def target_name(registry: str, local_ref: str) -> tuple[str, str]:
    """Where a local image goes: ``("localhost:5000/r2e/org__repo", "<tag>")`` for
    ``local/r2e-env/org__repo:<tag>`` (the last path component of the local repository, and its tag)."""
    last = local_ref.rsplit("/", 1)[-1]
    name, _, tag = last.partition(":")
    return f"{registry}/{name}", tag or "latest"


def is_digest_ref(ref: str) -> bool:
    """True for ``name@sha256:<64 hex>`` (an image pinned by digest)."""
    return re.search(r"@sha256:[0-9a-f]{64}$", ref) is not None


def _registry_digest(client: docker.DockerClient, ref: str, auth: dict | None) -> str | None:
    try:
        return client.images.get_registry_data(ref, auth_config=auth).id
    except (docker.errors.NotFound, docker.errors.APIError):
        return None


def pushed_ref(client: docker.DockerClient, local_ref: str, registry: str, auth: RegistryAuth) -> str | None:
    """``<repository>@sha256:…`` when ``registry`` already holds ``local_ref``'s name and tag (``target_name``),
    else None: for content-named tags, the image pushed before, with no local build needed."""
    repository, tag = target_name(registry, local_ref)
    remote = _registry_digest(client, f"{repository}:{tag}", auth.config())
    return None if remote is None else f"{repository}@{remote}"


def push_image(client: docker.DockerClient, local_ref: str, registry: str, auth: RegistryAuth,
               stats: PushStats) -> str:
    """Push ``local_ref`` to ``registry`` (see the module docstring); returns ``<repository>@sha256:…``.
    Raises ``PushError`` when the image is not here or the registry refuses it."""
    try:
        image = client.images.get(local_ref)
    except docker.errors.ImageNotFound:
        raise PushError(f"image {local_ref} is not on this machine; push from the machine that generated the "
                        "task, or generate it here again") from None
    repository, tag = target_name(registry, local_ref)
    remote = _registry_digest(client, f"{repository}:{tag}", auth.config())
    if remote is not None and f"{repository}@{remote}" in image.attrs.get("RepoDigests", []):
        stats.images_present += 1
        return f"{repository}@{remote}"
    image.tag(repository, tag)
    digest = None
    try:
        for line in client.api.push(repository, tag, stream=True, decode=True, auth_config=auth.config()):
            if "error" in line:
                raise PushError(f"pushing {repository}:{tag}: {line.get('error', '')[:300]}")
            status = line.get("status", "")
            if status == "Pushed":
                stats.layers_pushed += 1
            elif status == "Layer already exists":
                stats.layers_present += 1
            digest = (line.get("aux") or {}).get("Digest", digest)
    except docker.errors.APIError as exc:
        raise PushError(f"pushing {repository}:{tag}: {exc.explanation or exc}"[:400]) from None
    if not digest:
        raise PushError(f"pushing {repository}:{tag}: the engine reported no digest")
    stats.images_pushed += 1
    return f"{repository}@{digest}"
