"""Which GitHub repository a CLI source names: ``org/repo``, ``https://github.com/org/repo[.git]``, or a
GitHub Enterprise URL together with ``--github-url https://host/api/v3``.

A source that exists on disk, or a ``file://`` URL, is a local clone and never reaches this module.
"""

import re
from typing import NamedTuple
from urllib.parse import urlparse

from repo2env.core.errors import InputError

PUBLIC_API = "https://api.github.com"

_PART = r"[A-Za-z0-9_.-]+"
_SLUG = re.compile(rf"^(?P<owner>{_PART})/(?P<name>{_PART})$")
_URL_PATH = re.compile(rf"^/(?P<owner>{_PART})/(?P<name>{_PART}?)(?:\.git)?/?$")


class GitHubSpec(NamedTuple):
    """``owner``/``name`` on the API at ``api_url`` (no trailing slash)."""

    owner: str
    name: str
    api_url: str

    @property
    def slug(self) -> str:
        return f"{self.owner}/{self.name}"


def looks_like_github(source: str) -> bool:
    """True when ``source`` has the shape of ``org/repo`` or an http(s) URL (a local path is checked first)."""
    return bool(_SLUG.match(source)) or source.startswith(("https://", "http://"))


def check_api_url(github_url: str) -> str:
    """``--github-url`` without a trailing slash, after checking it is an http(s) URL with a host and a valid port
    and no credentials. Raises ``InputError``."""
    if "@" in github_url.split("/")[2] if github_url.count("/") >= 2 else False:
        raise InputError("--github-url: credentials in the URL are not used (and not shown); put the token in "
                         "GH_ENTERPRISE_TOKEN")
    try:
        parsed = urlparse(github_url)
        parsed.port  # raises ValueError when out of range
    except ValueError:
        parsed = None
    if parsed is None or parsed.scheme not in ("https", "http") or not parsed.hostname:
        raise InputError(f"--github-url {github_url}: not an http(s) URL with a host; pass the API root, e.g. "
                         "https://github.example.com/api/v3")
    return github_url.rstrip("/")


def parse_github_source(source: str, github_url: str | None = None) -> GitHubSpec:
    """Parse ``source`` into a ``GitHubSpec``. ``github_url`` is the API root of a GitHub Enterprise server (or a
    test server); without it the public API is used. Raises ``InputError`` for anything else."""
    api = check_api_url(github_url) if github_url else PUBLIC_API
    if urlparse(source).username or urlparse(source).password:
        raise InputError("the source URL carries credentials: they are not used (and not shown); pass "
                         "https://host/org/repo and put the token in GITHUB_TOKEN")
    if source.startswith(("git@", "ssh://")):
        raise InputError(f"{source}: SSH URLs are not supported; pass org/repo or https://github.com/org/repo")
    m = _SLUG.match(source)
    if m and m["owner"] not in (".", "..") and m["name"] not in (".", ".."):
        return GitHubSpec(m["owner"], _strip_git(m["name"]), api)
    url = urlparse(source)
    path = _URL_PATH.match(url.path or "")
    if url.scheme in ("https", "http") and path:
        if url.hostname in ("github.com", "www.github.com"):
            return GitHubSpec(path["owner"], _strip_git(path["name"]), (github_url or PUBLIC_API).rstrip("/"))
        if github_url:
            return GitHubSpec(path["owner"], _strip_git(path["name"]), api)
        raise InputError(f"{source}: {url.hostname} is not github.com; for GitHub Enterprise also pass "
                         f"--github-url https://{url.hostname}/api/v3")
    if source.startswith("github.com/"):
        raise InputError(f"{source}: pass https://{source} or {source[len('github.com/'):]}")
    raise InputError(f"{source}: neither an existing clone nor a GitHub repository; pass a clone's path, "
                     "org/repo or https://github.com/org/repo")


def _strip_git(name: str) -> str:
    return name[:-4] if name.endswith(".git") else name
