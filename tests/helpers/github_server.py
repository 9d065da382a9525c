"""A small GitHub REST server on 127.0.0.1 for tests: the real PyGithub client talks to it over HTTP.

It serves ``/api/v3`` like a GitHub Enterprise server: a repository, its pulls (paged with ``Link`` headers), its
issues, with ``ETag``/``If-None-Match`` (304), ``X-RateLimit-*`` headers, token checks (401), unknown
repositories (404) and a queue of injected faults (403/429 rate limits, 500). Every request is logged.
``from_git_history`` builds the PR records of a repository from its first-parent history, the way GitHub would
have them, and adds ``refs/pull/N/head`` to a bare clone that serves as the clone URL.
"""

import base64
import hashlib
import json
import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlparse

from tests.helpers.repos import git

PREFIX = "/api/v3"


TOKEN = "ghp_TESTtoken0123456789abcdefSECRET"
ISSUE_7 = ("divide(1, 0) raises a bare ZeroDivisionError",
           "Calling `calc.ops.divide(1, 0)` raises ZeroDivisionError from inside the helper. Callers catch "
           "ValueError for bad input, so division by zero should raise ValueError('cannot divide by zero').")


@dataclass
class Fault:
    """Answer the next ``times`` requests whose path matches ``path`` with ``status``, ``headers`` and ``body``."""

    path: str
    status: int
    headers: dict = field(default_factory=dict)
    body: dict = field(default_factory=dict)
    times: int = 1


@dataclass
class Seen:
    method: str
    path: str
    status: int
    authorization: str | None


class FakeGitHub:
    """State and log of the fake server. ``url`` is the API root to pass as ``--github-url``."""

    def __init__(self, owner: str, name: str, bare: Path, default_branch: str = "main"):
        self.owner, self.name, self.bare = owner, name, bare
        self.repo = {"id": 1, "name": name, "full_name": f"{owner}/{name}", "private": False,
                     "owner": {"login": owner, "id": 2, "type": "Organization"},
                     "html_url": f"https://github.com/{owner}/{name}", "clone_url": "",
                     "default_branch": default_branch, "url": ""}
        self.max_per_page = 100
        self.pulls: list[dict] = []
        self.issues: dict[int, dict] = {}
        self.faults: list[Fault] = []
        self.log: list[Seen] = []
        self.tokens: set[str] | None = None  # None: any token, or none, is accepted
        self.remaining = 5000
        self.lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self.repo["clone_url"] = f"http://127.0.0.1:{self._server.server_address[1]}/git/{owner}/{name}.git"
        self.repo["url"] = f"{self.url}/repos/{owner}/{name}"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{PREFIX}"

    def start(self) -> "FakeGitHub":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def reset_log(self) -> None:
        with self.lock:
            self.log.clear()

    def count(self, status: int | None = None) -> int:
        return sum(1 for s in self.log if status is None or s.status == status)

    # -- content -------------------------------------------------------------------------------------------

    def add_pull(self, number: int, *, title: str, body: str, merged_at: datetime | None, head_sha: str,
                 merge_commit_sha: str | None, user: str = "alice", user_type: str = "User", draft: bool = False,
                 labels: tuple[str, ...] = (), updated_at: datetime | None = None) -> None:
        updated = updated_at or (merged_at or datetime(2025, 6, 1, tzinfo=UTC)) + timedelta(minutes=5)
        stamp = lambda d: d.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if d else None  # noqa: E731
        self.pulls.append({
            "url": f"{self.repo['url']}/pulls/{number}", "id": 1000 + number, "number": number, "state": "closed", "title": title, "body": body,
            "draft": draft, "user": {"login": user, "id": 50 + number, "type": user_type},
            "labels": [{"name": n, "id": i} for i, n in enumerate(labels)],
            "created_at": stamp(updated - timedelta(days=2)), "updated_at": stamp(updated),
            "closed_at": stamp(merged_at or updated), "merged_at": stamp(merged_at),
            "merge_commit_sha": merge_commit_sha,
            "head": {"sha": head_sha, "ref": f"branch-{number}", "label": f"{self.owner}:branch-{number}"},
            "base": {"ref": self.repo["default_branch"], "sha": "0" * 40},
            "html_url": f"https://github.com/{self.owner}/{self.name}/pull/{number}"})
        self.pulls.sort(key=lambda p: p["updated_at"], reverse=True)

    def add_issue(self, number: int, title: str, body: str) -> None:
        self.issues[number] = {"id": 5000 + number, "number": number, "title": title, "body": body,
                               "state": "closed", "user": {"login": "reporter", "id": 9, "type": "User"},
                               "labels": [], "url": f"{self.repo['url']}/issues/{number}",
                               "html_url": f"https://github.com/{self.owner}/{self.name}/issues/{number}"}

    # -- routing -------------------------------------------------------------------------------------------

    def route(self, path: str, query: dict) -> tuple[int, object, dict]:
        repo_path = f"/repos/{self.owner}/{self.name}"
        if path == repo_path:
            return 200, self.repo, {}
        if path == f"{repo_path}/pulls":
            return self._page(self.pulls, query, path)
        m = re.fullmatch(rf"{re.escape(repo_path)}/pulls/(\d+)", path)
        if m:
            found = [p for p in self.pulls if p["number"] == int(m[1])]
            return (200, found[0], {}) if found else (404, {"message": "Not Found"}, {})
        m = re.fullmatch(rf"{re.escape(repo_path)}/issues/(\d+)", path)
        if m and int(m[1]) in self.issues:
            return 200, self.issues[int(m[1])], {}
        m = re.fullmatch(rf"{re.escape(repo_path)}/issues/(\d+)", path)
        if m and any(p["number"] == int(m[1]) for p in self.pulls):
            return 200, {"number": int(m[1]), "title": "a PR", "body": "", "state": "closed",
                         "pull_request": {"url": ""}, "labels": [], "url": ""}, {}
        return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"}, {}

    def _page(self, items: list, query: dict, path: str) -> tuple[int, object, dict]:
        per_page = min(int(query.get("per_page", ["30"])[0]), self.max_per_page)
        page = int(query.get("page", ["1"])[0])
        chunk = items[(page - 1) * per_page: page * per_page]
        headers = {}
        if page * per_page < len(items):
            base = f"http://127.0.0.1:{self._server.server_address[1]}{PREFIX}{path}"
            headers["Link"] = f'<{base}?state=closed&per_page={per_page}&page={page + 1}>; rel="next"'
        return 200, chunk, headers


def _handler(state: FakeGitHub):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # keep test output clean
            pass

        def do_POST(self):
            self._git()

        def do_GET(self):
            if self.path.startswith("/git/"):
                return self._git()
            url = urlparse(self.path)
            path = url.path[len(PREFIX):] if url.path.startswith(PREFIX) else url.path
            auth = self.headers.get("Authorization")
            status, body, headers = self._answer(path, parse_qs(url.query), auth)
            with state.lock:
                state.log.append(Seen("GET", path, status, auth))

        def _git(self):
            """Smart HTTP through ``git http-backend`` (CGI); with ``state.tokens`` set, Basic
            ``x-access-token:<token>`` is required, as GitHub accepts it."""
            auth = self.headers.get("Authorization")
            if state.tokens is not None:
                ok = {"Basic " + base64.b64encode(f"x-access-token:{t}".encode()).decode() for t in state.tokens}
                if auth not in ok:
                    with state.lock:
                        state.log.append(Seen(self.command, self.path, 401, auth))
                    return self._send(401, {"message": "Bad credentials"}, {"WWW-Authenticate": 'Basic realm="git"'})
            url = urlparse(self.path)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            env = {"PATH": os.environ["PATH"], "GIT_PROJECT_ROOT": str(state.bare.parent),
                   "GIT_HTTP_EXPORT_ALL": "1", "REQUEST_METHOD": self.command,
                   "PATH_INFO": "/" + url.path.split("/", 3)[3], "QUERY_STRING": url.query,
                   "CONTENT_TYPE": self.headers.get("Content-Type", ""), "CONTENT_LENGTH": str(len(body)),
                   "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""), "GIT_CONFIG_GLOBAL": "/dev/null"}
            out = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True).stdout
            head, _, payload = out.partition(b"\r\n\r\n")
            status = 200
            self_headers = {}
            for line in head.decode().split("\r\n"):
                key, _, value = line.partition(": ")
                if key.lower() == "status":
                    status = int(value.split()[0])
                elif key:
                    self_headers[key] = value
            with state.lock:
                state.log.append(Seen(self.command, self.path, status, auth))
            self.send_response(status)
            for key, value in self_headers.items():
                self.send_header(key, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _answer(self, path, query, auth):
            with state.lock:
                for fault in state.faults:
                    if fault.times > 0 and re.search(fault.path, path):
                        fault.times -= 1
                        return self._send(fault.status, fault.body, fault.headers)
            token = auth.split(" ", 1)[1] if auth and " " in auth else None
            if state.tokens is not None and token not in state.tokens:
                return self._send(401, {"message": "Bad credentials"}, {})
            status, body, headers = state.route(path, query)
            raw = json.dumps(body).encode()
            etag = '"' + hashlib.sha1(raw).hexdigest() + '"'
            if status == 200 and self.headers.get("If-None-Match") == etag:
                return self._send(304, None, {"ETag": etag})
            with state.lock:
                state.remaining -= 1
            return self._send(status, body, dict(headers, ETag=etag) if status == 200 else headers)

        def _send(self, status, body, headers):
            raw = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(raw)))
            defaults = {"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": str(max(state.remaining, 0)),
                        "X-RateLimit-Reset": str(int(time.time()) + 3600)}
            for key, value in {**defaults, **headers}.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(raw)
            return status, body, headers

    return Handler


def _git(repo: Path, *args: str) -> str:
    return git(repo, *args, env={"GIT_AUTHOR_DATE": "2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2025-01-01T00:00:00Z"})


def serve_git_history(repo: Path, bare: Path, owner: str, name: str) -> FakeGitHub:
    """A fake GitHub for a copy of ``repo``: a bare clone at ``bare`` with ``refs/pull/N/head`` for every PR on
    ``main``'s first-parent history (merge: its second parent; squash: a branch commit with the same tree that
    only ``refs/pull/N/head`` reaches), and one PR record each,
    merged at the commit's date. Returns the (not yet started) server."""
    import git as gitpython

    from repo2env.sources.local import parse_pr_commit

    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    server = FakeGitHub(owner, name, bare)
    for commit in gitpython.Repo(bare).iter_commits("main", first_parent=True):
        parsed = parse_pr_commit(commit)
        if parsed is None:
            continue
        number, title, body = parsed
        if len(commit.parents) == 2:
            head = commit.parents[1].hexsha
        else:  # a squash merge: the PR's own branch tip is another commit, with the same tree, off the branch
            head = _git(bare, "commit-tree", commit.tree.hexsha, "-p", commit.parents[0].hexsha,
                        "-m", f"work on {title}").strip()
        _git(bare, "update-ref", f"refs/pull/{number}/head", head)
        server.add_pull(number, title=title, body=body, merged_at=commit.committed_datetime.astimezone(UTC),
                        head_sha=head, merge_commit_sha=commit.hexsha)
    return server


def demo_server(demo_repo: Path, root: Path) -> FakeGitHub:
    """The demo repository (repo2env.sources.demo_repo) as ``org/calc``: its five merged PRs, a closed-unmerged PR #6,
    a closed draft #8, a merged bot PR #9, and issue #7 (which PR #1 fixes). The server requires ``TOKEN``.
    Returns it not yet started."""
    server = serve_git_history(demo_repo, root / "calc.git", "org", "calc")
    main_tip = _git(demo_repo, "rev-parse", "main").strip()
    server.add_pull(6, title="Try a faster add", body="Never merged.", merged_at=None, head_sha=main_tip,
                    merge_commit_sha=None, updated_at=datetime(2025, 3, 1, 10, tzinfo=UTC))
    server.add_pull(8, title="WIP: rewrite everything", body="Draft.", merged_at=None, head_sha=main_tip,
                    merge_commit_sha=None, draft=True, updated_at=datetime(2025, 3, 1, 11, tzinfo=UTC))
    server.add_pull(9, title="Bump pytest from 7 to 8", body="Dependabot.", user="dependabot[bot]",
                    user_type="Bot", merged_at=datetime(2025, 3, 1, 12, tzinfo=UTC), head_sha=main_tip,
                    merge_commit_sha=main_tip)
    server.add_issue(7, *ISSUE_7)
    server.tokens = {TOKEN}
    return server
