"""The GitHub REST client: PyGithub with rate-limit-aware retries, an on-disk ETag cache, counters and one-line errors.

- Retries: PyGithub's ``GithubRetry`` (urllib3 ``Retry``) waits for a primary rate limit until ``X-RateLimit-Reset``,
  for a secondary one ``Retry-After`` (or 60 s), and retries 5xx with exponential backoff; every wait of a second or
  more is logged on the ``repo2env.github`` logger (WARNING) so the user sees it. A wait longer than ``max_wait``
  seconds ends the run instead (``RateLimited``).
- Cache: ``requests-cache`` (SQLite under the cache directory) stores every 200 response with its ``ETag`` and
  revalidates it on each use (``If-None-Match``); GitHub answers an unchanged resource with 304, which costs no
  quota (GitHub REST docs, "conditional requests"). The ``Authorization`` header is never part of a cache key and
  never stored (requests-cache's default ``ignored_parameters``).
- Counters: ``ApiStats`` counts requests that went over the network, 304s and the last ``X-RateLimit-Remaining``.
- Token: ``GITHUB_TOKEN``, else ``GH_TOKEN``, else ``gh auth token`` when the GitHub CLI is installed; none means
  anonymous access (60 requests an hour on github.com). The token is never put into a message, a log line or a file.
"""

import logging
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlparse

import github
import requests
import requests.adapters
import requests_cache
from github import Auth, Github, GithubRetry
from github.Requester import HTTPRequestsConnectionClass, HTTPSRequestsConnectionClass, Requester

from repo2env.core.errors import FatalSourceError, InputError, R2EError
from repo2env.core.gitrepo import docker_safe
from repo2env.sources.github_spec import PUBLIC_API

log = logging.getLogger("repo2env.github")

DEFAULT_MAX_WAIT_SEC = 3600.0


class RateLimited(FatalSourceError):
    """The API rate limit is exhausted and would take longer than ``max_wait`` to reset (ends the run)."""


class GitHubError(R2EError):
    """GitHub answered with an error other than 401/404/rate limit, or could not be reached."""


def web_host(api_url: str) -> str:
    """The web host of an API root: ``github.com`` for ``https://api.github.com``, else the URL's host."""
    host = urlparse(api_url).hostname or "github.com"
    return "github.com" if host == "api.github.com" else host


def token_variables(host: str) -> tuple[str, ...]:
    """The environment variables that hold a token for ``host``, as the GitHub CLI reads them: ``GH_TOKEN`` /
    ``GITHUB_TOKEN`` for github.com, ``GH_ENTERPRISE_TOKEN`` / ``GITHUB_ENTERPRISE_TOKEN`` for any other host (so
    a github.com token is never sent to another server)."""
    if host == "github.com":
        return ("GITHUB_TOKEN", "GH_TOKEN")
    return ("GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN")


def token_variable(host: str) -> str:
    return token_variables(host)[0]


def find_token(host: str = "github.com") -> str | None:
    """The token to use for ``host``: the first of ``token_variables(host)`` that is set, else
    ``gh auth token --hostname host``. Returns None when there is none (anonymous access)."""
    for name in token_variables(host):
        value = os.environ.get(name, "").strip()
        if value:
            return value
    gh = shutil.which("gh")
    if gh:
        try:
            done = subprocess.run([gh, "auth", "token", "--hostname", host], capture_output=True, text=True,
                                  timeout=20, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if done.returncode == 0 and done.stdout.strip():
            return done.stdout.strip()
    return None


@dataclass
class ApiStats:
    """What this process asked of the API: ``requests`` sent over the network, ``not_modified`` (304, free of
    quota), ``rate_remaining`` as last reported by ``X-RateLimit-Remaining`` (None before any answer)."""

    requests: int = 0
    not_modified: int = 0
    rate_remaining: int | None = None
    waits: list[float] = field(default_factory=list)

    @property
    def quota_used(self) -> int:
        """Requests that counted against the primary rate limit (everything but 304s)."""
        return self.requests - self.not_modified

    def describe(self) -> str:
        """One line, e.g. ``5 requests (4 not modified), quota remaining 4990``."""
        text = f"{self.requests} requests ({self.not_modified} not modified, {self.quota_used} counted)"
        if self.rate_remaining is not None:
            text += f", quota remaining {self.rate_remaining}"
        return text


class _CountingAdapter(requests.adapters.HTTPAdapter):
    """Counts every request that reaches the network (cache hits never get here)."""

    def __init__(self, stats: ApiStats, **kwargs):
        super().__init__(**kwargs)
        self.stats = stats

    def send(self, request, **kwargs):
        response = super().send(request, **kwargs)
        self.stats.requests += 1
        if response.status_code == 304:
            self.stats.not_modified += 1
        remaining = response.headers.get("X-RateLimit-Remaining", "")
        if remaining.isdigit():
            self.stats.rate_remaining = int(remaining)
        return response


class WaitTooLong(Exception):
    """A retry would wait longer than ``max_wait`` seconds (any cause: Retry-After, backoff, rate-limit reset)."""

    def __init__(self, wait: float, status: int | None):
        super().__init__(f"wait {wait:.0f} s")
        self.wait, self.status = wait, status


class _VisibleRetry(GithubRetry):
    """``GithubRetry`` that says when it is about to sleep (rate-limit resets can take many minutes) and refuses
    any wait longer than ``max_rate_limit_wait``, whatever asked for it."""

    def sleep(self, response=None):
        wait = (self.get_retry_after(response) if response is not None else None) or self.get_backoff_time()
        if self.max_rate_limit_wait is not None and wait > self.max_rate_limit_wait:
            raise WaitTooLong(wait, response.status if response is not None else None)
        if wait >= 1:
            status = f"answered HTTP {response.status}" if response is not None else "could not be reached"
            until = datetime.now(UTC).timestamp() + wait
            log.warning("GitHub %s: waiting %.0f s (until %s UTC) before retrying", status, wait,
                        datetime.fromtimestamp(until, UTC).strftime("%H:%M:%S"))
        super().sleep(response)


def _connection_classes(cache_file: Path | None, stats: ApiStats):
    """PyGithub connection classes whose ``requests`` session is a revalidating cache with a counting adapter."""

    def setup(conn) -> None:
        if cache_file is not None:
            # Expired at once but kept with its validators: every use is a conditional request, and a failed
            # one is an error, never a silent fallback to the stored answer.
            session = requests_cache.CachedSession(
                str(cache_file), backend="sqlite", expire_after=requests_cache.EXPIRE_IMMEDIATELY,
                allowable_codes=(200,), stale_if_error=False)
        else:
            session = requests.Session()
        session.auth = Requester.noopAuth  # as PyGithub does: never fall back to ~/.netrc
        adapter = _CountingAdapter(stats, max_retries=conn.retry, pool_connections=conn.pool_size,
                                   pool_maxsize=conn.pool_size)
        session.mount("https://", adapter)
        session.mount("http://", adapter)
        conn.session, conn.adapter = session, adapter

    class HTTPS(HTTPSRequestsConnectionClass):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            setup(self)

    class HTTP(HTTPRequestsConnectionClass):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            setup(self)

    return HTTP, HTTPS


@dataclass
class GitHubApi:
    """A configured PyGithub client and its counters. Build it with ``connect``."""

    client: Github
    api_url: str
    host: str
    token: str | None
    stats: ApiStats


def connect(api_url: str = PUBLIC_API, *, cache_dir: Path | None = None, token: str | None = None,
            max_wait: float = DEFAULT_MAX_WAIT_SEC, retries: int = 8,
            seconds_between_requests: float | None = 0.25) -> GitHubApi:
    """A PyGithub client for ``api_url`` (``https://api.github.com`` or an Enterprise ``https://host/api/v3``).

    ``cache_dir``: where the SQLite response cache lives (None: no cache). ``max_wait``: longest rate-limit wait in
    seconds before giving up with ``RateLimited``. The connection classes are PyGithub's, with the session swapped,
    installed through ``Requester.injectConnectionClasses`` (process-wide; one configuration per process).
    """
    parsed = urlparse(api_url)
    stats = ApiStats()
    cache_file = None
    if cache_dir is not None:
        try:
            cache_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--cache-dir {cache_dir.parent.parent}: cannot write there ({exc.strerror}); choose "
                             "a writable folder") from None
        cache_file = cache_dir / f"api-{docker_safe(parsed.netloc)}.sqlite"
        _check_cache(cache_file)
    Requester.injectConnectionClasses(*_connection_classes(cache_file, stats))
    for name in ("github", "requests_cache"):  # their own log lines would bypass our one-line messages
        logging.getLogger(name).addHandler(logging.NullHandler())
        logging.getLogger(name).propagate = False
    # Temporary server errors only: 501 (not implemented) and other 5xx answers will not change on retry.
    retry = _VisibleRetry(total=retries, connect=2, read=2, backoff_factor=1.0, max_rate_limit_wait=max_wait,
                          status_forcelist=[500, 502, 503, 504, 429])
    auth = Auth.Token(token) if token else None
    client = Github(auth=auth, base_url=api_url.rstrip("/"), retry=retry, per_page=100, timeout=30,
                    seconds_between_requests=seconds_between_requests)
    return GitHubApi(client=client, api_url=api_url.rstrip("/"), host=web_host(api_url), token=token, stats=stats)


def _check_cache(cache_file: Path) -> None:
    """A cache file that is not a SQLite database (a crash, a stray write) is moved aside: the cache is only a
    cache, and a bad one must not break every later run."""
    import sqlite3

    if cache_file.is_dir():
        raise InputError(f"{cache_file}: is a folder where the API cache belongs; remove it or pass another "
                         "--cache-dir")
    if not cache_file.exists():
        return
    try:
        with sqlite3.connect(cache_file) as db:
            db.execute("select name from sqlite_master").fetchall()
    except sqlite3.DatabaseError:
        aside = cache_file.with_suffix(".corrupt")
        cache_file.replace(aside)
        log.warning("the GitHub API cache %s was not a database; moved it to %s and started a new one",
                    cache_file, aside.name)


def _redact(text: str, token: str | None) -> str:
    return text.replace(token, "***") if token else text


def translate(exc: Exception, what: str, api: GitHubApi) -> R2EError:
    """A one-line ``R2EError`` for a PyGithub/requests failure while doing ``what`` (e.g. ``org/repo``).

    401 -> ``InputError`` (bad token); 404 -> ``InputError`` (no such repository, or private without access);
    rate limit -> ``RateLimited``; anything else -> ``GitHubError``. The token never appears in the message.
    """
    if isinstance(exc, WaitTooLong) or isinstance(getattr(exc, "__context__", None), WaitTooLong):
        wait = exc if isinstance(exc, WaitTooLong) else exc.__context__
        answer = f"HTTP {wait.status}" if wait.status else "a failed connection"
        return RateLimited(f"{what}: GitHub answered {answer} and asked to wait {wait.wait:.0f} s, more than "
                           "--max-rate-wait; run again later or raise --max-rate-wait")
    if isinstance(exc, github.BadCredentialsException):
        if not api.token:
            return InputError(f"{what}: {api.host} requires a token (401); set {token_variable(api.host)}")
        return InputError(f"{what}: GitHub rejected the token (401 Bad credentials); check "
                          f"{token_variable(api.host)} (or unset it for anonymous access to public repositories)")
    if isinstance(exc, github.UnknownObjectException):
        hint = "check the name" if api.token else "check the name, or set GITHUB_TOKEN if it is private"
        return InputError(f"{what}: not found on {api.host} (404: no such repository, or private without "
                          f"access); {hint}")
    if isinstance(exc, (github.RateLimitExceededException, github.RateLimitExceededExceedsMaxWait)):
        reset = getattr(exc, "headers", None) or {}
        when = reset.get("X-RateLimit-Reset") or reset.get("x-ratelimit-reset")
        at = (datetime.fromtimestamp(int(when), UTC).strftime("%H:%M UTC") if when and str(when).isdigit()
              else "later")
        hint = ("run again after the reset, or raise --max-rate-wait" if api.token else
                f"set {token_variable(api.host)} for a higher limit, or run again later")
        return RateLimited(f"{what}: GitHub API rate limit exhausted (resets at {at}); {hint}")
    if isinstance(exc, github.GithubException):
        message = exc.data.get("message") if isinstance(exc.data, dict) else None
        return GitHubError(_redact(f"{what}: GitHub answered {exc.status}: {message or 'error'}", api.token))
    if isinstance(exc, requests.exceptions.RetryError):
        reason = getattr(getattr(exc.args[0] if exc.args else None, "reason", None), "args", [""])
        return GitHubError(f"{what}: GitHub kept failing ({api.api_url}: {str(reason[0])[:80] or 'retries'}); "
                           "retries exhausted, run again later")
    if isinstance(exc, requests.exceptions.RequestException):
        return GitHubError(f"{what}: cannot reach the GitHub API at {api.api_url} ({type(exc).__name__}); "
                           "check the network or --github-url")
    raise exc
