"""A small in-memory Hugging Face Hub on 127.0.0.1 for tests: the real ``huggingface_hub`` client talks to it over HTTP.

Only what ``HfApi.create_repo``, ``HfApi.upload_folder`` (both its xet pipeline and its ``create_commit`` path, with
every file answered as a "regular" git blob) and ``snapshot_download(local_dir=...)`` of huggingface_hub 2.4 request:

- ``POST /api/repos/create``: ``{"name", "organization", "type", "visibility"}``; 409 when the repository exists.
  A new repository gets an initial commit holding ``.gitattributes``, as the Hub does.
- ``GET /api/{type}s/{owner}/{name}[/revision/{rev}]``: repository info (``id``, ``sha``, ``private``, ``siblings``).
- ``GET /api/{type}s/{owner}/{name}/tree/{rev}[/{path}]?recursive=&cursor=``: file and directory entries
  (``type``, ``path``, ``oid``, ``size``), paged by ``page_size`` with a ``Link: <…>; rel="next"`` header.
- ``POST /api/validate-yaml``: accepts every card (no errors, no warnings).
- ``POST /api/{type}s/{owner}/{name}/preupload/{rev}``: ``uploadMode`` "regular", ``shouldIgnore`` false, and
  ``oid`` (the git blob sha1) for a path that exists at ``rev``, so the client drops unchanged files.
- ``POST /api/{type}s/{owner}/{name}/commit/{branch}``: NDJSON ``header`` (``summary``, ``description``,
  ``parentCommit``), ``file`` (base64 content), ``deletedFile``, ``deletedFolder``; ``lfsFile`` is refused (400).
- ``HEAD``/``GET /[datasets/]{owner}/{name}/resolve/{rev}/{path}``: ``ETag`` (quoted blob sha1), ``X-Repo-Commit``,
  ``Content-Length``; ``Range: bytes=N-`` is honoured.

Errors carry the headers ``hf_raise_for_status`` reads (``X-Error-Code`` RepoNotFound / RevisionNotFound /
EntryNotFound, ``X-Error-Message``). A request with a wrong bearer token gets 401 "Invalid credentials in
Authorization header" on any endpoint; write endpoints (create, preupload, commit) without a token get 401; a private
repository is invisible (401 with RepoNotFound) without a token. Any valid token may write to any namespace.

Commits are kept as full snapshots ``{path: bytes}`` so tests can read the history: ``commits(repo_id)`` gives each
commit's message and the paths it ``added``, ``changed`` and ``deleted`` (computed against its parent), and the paths
the client ``sent`` as file content (a sent file whose bytes did not change shows up in ``sent`` only).
"""

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, unquote, urlencode, urlparse

TOKEN = "hf_TESTtoken0123456789abcdefSECRET"
INVALID_CREDENTIALS = "Invalid credentials in Authorization header"
GITATTRIBUTES = b"*.parquet filter=lfs diff=lfs merge=lfs -text\n*.arrow filter=lfs diff=lfs merge=lfs -text\n"
TYPES = {"models": "model", "datasets": "dataset", "spaces": "space"}
URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}


def blob_sha(data: bytes) -> str:
    """The git blob id of ``data`` (what the Hub reports as a regular file's ``oid``)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Commit:
    oid: str
    message: str
    description: str
    parent: str | None
    tree: dict[str, bytes]
    sent: list[str]
    deleted_ops: list[str]


@dataclass
class Repo:
    repo_id: str
    repo_type: str
    private: bool
    commits: list[Commit] = field(default_factory=list)

    @property
    def head(self) -> Commit:
        return self.commits[-1]

    def at(self, revision: str) -> Commit | None:
        if revision == "main":
            return self.head
        return next((c for c in self.commits if c.oid == revision), None)


@dataclass
class Seen:
    method: str
    path: str
    status: int
    authorized: bool


class HttpError(Exception):
    def __init__(self, status: int, message: str, code: str | None = None, headers: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.code, self.headers = status, message, code, headers or {}


class HubServer:
    """State and log of the fake Hub. ``url`` is what ``HF_ENDPOINT`` must be set to."""

    def __init__(self, token: str = TOKEN, page_size: int = 1000):
        self.token = token
        self.page_size = page_size  # tree entries per page (the Hub uses 1000)
        self.repos: dict[tuple[str, str], Repo] = {}
        self.log: list[Seen] = []
        self.lock = threading.Lock()
        self._counter = 0
        self._stopped = False
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> "HubServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the port (a second call does nothing)."""
        if self._stopped:
            return
        self._stopped = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    # ------------------------------------------------------------------ accessors for tests

    def repo(self, repo_id: str, repo_type: str = "dataset") -> Repo:
        return self.repos[(repo_type, repo_id)]

    def files(self, repo_id: str, repo_type: str = "dataset") -> dict[str, bytes]:
        """The files at the head of ``main``."""
        with self.lock:
            return dict(self.repo(repo_id, repo_type).head.tree)

    def commits(self, repo_id: str, repo_type: str = "dataset") -> list[dict]:
        """Every commit of ``main``, oldest first: oid, message, and the paths it added/changed/deleted/sent."""
        with self.lock:
            out, before = [], {}
            for c in self.repo(repo_id, repo_type).commits:
                out.append({"oid": c.oid, "message": c.message, "parent": c.parent,
                            "added": sorted(set(c.tree) - set(before)),
                            "changed": sorted(p for p in c.tree if p in before and before[p] != c.tree[p]),
                            "deleted": sorted(set(before) - set(c.tree)),
                            "sent": sorted(c.sent), "deleted_ops": sorted(c.deleted_ops)})
                before = c.tree
            return out

    # ------------------------------------------------------------------ internals

    def _new_commit(self, repo: Repo, message: str, description: str, tree: dict[str, bytes], sent: list[str],
                    deleted_ops: list[str]) -> Commit:
        self._counter += 1
        parent = repo.head.oid if repo.commits else None
        listing = json.dumps([parent, message, self._counter, sorted((p, blob_sha(b)) for p, b in tree.items())])
        commit = Commit(hashlib.sha1(listing.encode()).hexdigest(), message, description, parent, tree, sent,
                        deleted_ops)
        repo.commits.append(commit)
        return commit

    def _authorize(self, headers) -> bool:
        """True with the right token, False without any; raises 401 for a wrong one."""
        auth = headers.get("Authorization")
        if auth is None:
            return False
        if auth != f"Bearer {self.token}":
            raise HttpError(401, INVALID_CREDENTIALS)
        return True

    def _get_repo(self, repo_type: str, repo_id: str, authorized: bool) -> Repo:
        repo = self.repos.get((repo_type, repo_id))
        if repo is None or (repo.private and not authorized):
            status = 404 if authorized else 401
            raise HttpError(status, "Repository not found", code="RepoNotFound")
        return repo

    def _revision(self, repo: Repo, revision: str) -> Commit:
        commit = repo.at(revision)
        if commit is None:
            raise HttpError(404, f"Invalid rev id: {revision}", code="RevisionNotFound")
        return commit

    def handle(self, method: str, raw_path: str, headers, body: bytes) -> tuple[int, dict, bytes]:
        parsed = urlparse(raw_path)
        path, query = parsed.path, parse_qs(parsed.query)
        authorized = self._authorize(headers)
        with self.lock:
            if method == "POST" and path == "/api/repos/create":
                return self._create(json.loads(body or b"{}"), authorized)
            if method == "POST" and path == "/api/validate-yaml":
                return _json(200, {"errors": [], "warnings": []})
            m = re.fullmatch(r"/api/(models|datasets|spaces)/([^/]+/[^/]+)(?:/(.*))?", path)
            if m:
                repo_type, repo_id, rest = TYPES[m[1]], m[2], m[3] or ""
                if method in ("POST", "PUT", "DELETE") and not authorized:
                    raise HttpError(401, "You must be authenticated to access this resource")
                repo = self._get_repo(repo_type, repo_id, authorized)
                if method == "GET" and (rest == "" or rest.startswith("revision/")):
                    commit = self._revision(repo, unquote(rest[len("revision/"):]) if rest else "main")
                    return _json(200, self._info(repo, commit))
                if method == "GET" and rest.startswith("tree/"):
                    return self._tree(repo, rest[len("tree/"):], query, path)
                if method == "POST" and rest.startswith("preupload/"):
                    return self._preupload(repo, unquote(rest[len("preupload/"):]), json.loads(body))
                if method == "POST" and rest.startswith("commit/"):
                    return self._commit(repo, unquote(rest[len("commit/"):]), body)
                raise HttpError(404, f"no route for {method} {path}")
            m = re.fullmatch(r"/(datasets/|spaces/)?([^/]+/[^/]+)/resolve/([^/]+)/(.+)", path)
            if m and method in ("GET", "HEAD"):
                repo_type = {"datasets/": "dataset", "spaces/": "space"}.get(m[1] or "", "model")
                repo = self._get_repo(repo_type, m[2], authorized)
                return self._resolve(repo, unquote(m[3]), unquote(m[4]), headers, method)
            raise HttpError(404, f"no route for {method} {path}")

    def _create(self, payload: dict, authorized: bool) -> tuple[int, dict, bytes]:
        if not authorized:
            raise HttpError(401, "You must be authenticated to access this resource")
        repo_type = payload.get("type") or "model"
        repo_id = f"{payload['organization']}/{payload['name']}" if payload.get("organization") else payload["name"]
        url = f"{self.url}/{URL_PREFIX[repo_type]}{repo_id}"
        if (repo_type, repo_id) in self.repos:
            return _json(409, {"error": f"You already created this {repo_type} repo", "url": url})
        private = payload.get("visibility") == "private" or bool(payload.get("private"))
        repo = Repo(repo_id, repo_type, private)
        self.repos[(repo_type, repo_id)] = repo
        self._new_commit(repo, "initial commit", "", {".gitattributes": GITATTRIBUTES}, [".gitattributes"], [])
        return _json(200, {"url": url, "name": repo_id, "id": repo_id})

    def _info(self, repo: Repo, commit: Commit) -> dict:
        return {"_id": hashlib.sha1(repo.repo_id.encode()).hexdigest()[:24], "id": repo.repo_id,
                "author": repo.repo_id.split("/")[0], "sha": commit.oid, "private": repo.private,
                "gated": False, "disabled": False, "downloads": 0, "likes": 0, "tags": [],
                "lastModified": "2025-01-01T00:00:00.000Z", "createdAt": "2025-01-01T00:00:00.000Z",
                "siblings": [{"rfilename": p} for p in sorted(commit.tree)]}

    def _tree(self, repo: Repo, rest: str, query: dict, path: str) -> tuple[int, dict, bytes]:
        revision, _, sub = rest.partition("/")
        commit = self._revision(repo, unquote(revision))
        sub = unquote(sub).strip("/")
        recursive = query.get("recursive", ["false"])[0].lower() in ("true", "1")
        prefix = f"{sub}/" if sub else ""
        files = {p: b for p, b in commit.tree.items() if p.startswith(prefix)}
        if sub and not files:
            raise HttpError(404, f"{sub} does not exist on {revision}", code="EntryNotFound")
        dirs: dict[str, list[str]] = {}
        for p in files:
            parts = p[len(prefix):].split("/")
            for i in range(1, len(parts)):
                dirs.setdefault(prefix + "/".join(parts[:i]), []).append(p)
        entries = [{"type": "file", "path": p, "oid": blob_sha(b), "size": len(b)} for p, b in files.items()]
        entries += [{"type": "directory", "path": d, "size": 0,
                     "oid": hashlib.sha1("\n".join(sorted(f"{p} {blob_sha(commit.tree[p])}" for p in ps)).encode())
                     .hexdigest()} for d, ps in dirs.items()]
        if not recursive:
            entries = [e for e in entries if "/" not in e["path"][len(prefix):]]
        entries.sort(key=lambda e: e["path"])
        start = int(query.get("cursor", ["0"])[0])
        page = entries[start:start + self.page_size]
        extra = {}
        if start + self.page_size < len(entries):
            params = {k: v[0] for k, v in query.items() if k != "cursor"}
            params["cursor"] = str(start + self.page_size)
            extra["Link"] = f'<{self.url}{path}?{urlencode(params)}>; rel="next"'
        status, headers, body = _json(200, page)
        return status, {**headers, **extra}, body

    def _preupload(self, repo: Repo, revision: str, payload: dict) -> tuple[int, dict, bytes]:
        commit = self._revision(repo, revision)
        out = []
        for f in payload["files"]:
            entry = {"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
            if f["path"] in commit.tree:
                entry["oid"] = blob_sha(commit.tree[f["path"]])
            out.append(entry)
        return _json(200, {"files": out, "commitOid": commit.oid})

    def _commit(self, repo: Repo, branch: str, body: bytes) -> tuple[int, dict, bytes]:
        if branch != "main":
            raise HttpError(404, f"Invalid rev id: {branch}", code="RevisionNotFound")
        lines = [json.loads(line) for line in body.splitlines() if line.strip()]
        if not lines or lines[0].get("key") != "header":
            raise HttpError(400, "the first line must be the commit header")
        header = lines[0]["value"]
        if header.get("parentCommit") and header["parentCommit"] != repo.head.oid:
            raise HttpError(412, "A commit has happened since. Please refresh and try again.")
        tree, sent, deleted = dict(repo.head.tree), [], []
        for line in lines[1:]:
            key, value = line["key"], line["value"]
            if key == "file":
                if value.get("encoding") != "base64":
                    raise HttpError(400, "file content must be base64")
                tree[value["path"]] = base64.b64decode(value["content"])
                sent.append(value["path"])
            elif key == "deletedFile":
                if value["path"] not in tree:
                    raise HttpError(404, "A file with this name doesn't exist", code="EntryNotFound")
                del tree[value["path"]]
                deleted.append(value["path"])
            elif key == "deletedFolder":
                prefix = value["path"].rstrip("/") + "/"
                gone = [p for p in tree if p.startswith(prefix)]
                if not gone:
                    raise HttpError(404, "A folder with this name doesn't exist", code="EntryNotFound")
                for p in gone:
                    del tree[p]
                deleted.append(value["path"])
            else:
                raise HttpError(400, f"this fake Hub only takes regular files, not {key}")
        commit = self._new_commit(repo, header.get("summary", ""), header.get("description", ""), tree, sent,
                                  deleted)
        return _json(200, {"success": True, "commitOid": commit.oid, "pullRequestUrl": None, "hookOutput": "",
                           "commitUrl": f"{self.url}/{URL_PREFIX[repo.repo_type]}{repo.repo_id}/commit/{commit.oid}"})

    def _resolve(self, repo: Repo, revision: str, filename: str, headers, method: str) -> tuple[int, dict, bytes]:
        commit = self._revision(repo, revision)
        if filename not in commit.tree:
            raise HttpError(404, "Entry not found", code="EntryNotFound", headers={"X-Repo-Commit": commit.oid})
        data = commit.tree[filename]
        out = {"ETag": f'"{blob_sha(data)}"', "X-Repo-Commit": commit.oid, "Accept-Ranges": "bytes",
               "Content-Type": "application/octet-stream", "Content-Length": str(len(data))}
        status = 200
        m = re.fullmatch(r"bytes=(\d+)-", headers.get("Range") or "")
        if m and method == "GET":
            start = int(m[1])
            out["Content-Range"] = f"bytes {start}-{len(data) - 1}/{len(data)}"
            data, status = data[start:], 206
            out["Content-Length"] = str(len(data))
        return status, out, data


def _json(status: int, payload) -> tuple[int, dict, bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(payload).encode()


def _handler(hub: HubServer):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):  # quiet; requests are in hub.log
            pass

        def _body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                out = b""
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip(), 16)
                    if size == 0:
                        self.rfile.readline()
                        return out
                    out += self.rfile.read(size)
                    self.rfile.readline()
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))

        def _serve(self, method: str) -> None:
            body = self._body() if method in ("POST", "PUT") else b""
            authorized = self.headers.get("Authorization") == f"Bearer {hub.token}"
            try:
                status, headers, payload = hub.handle(method, self.path, self.headers, body)
            except HttpError as err:
                status, headers, payload = _json(err.status, {"error": err.message})
                headers = {**headers, "X-Error-Message": err.message, **err.headers}
                if err.code:
                    headers["X-Error-Code"] = err.code
            except Exception as exc:  # a bug in the fake: make it loud in the client's error
                status, headers, payload = _json(500, {"error": f"fake hub crashed: {exc!r}"})
            hub.log.append(Seen(method, self.path, status, authorized))
            self.send_response(status)
            for k, v in headers.items():
                self.send_header(k, v)
            if "Content-Length" not in headers:
                self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(payload)

        def do_GET(self):
            self._serve("GET")

        def do_HEAD(self):
            self._serve("HEAD")

        def do_POST(self):
            self._serve("POST")

        def do_PUT(self):
            self._serve("PUT")

        def do_DELETE(self):
            self._serve("DELETE")

    return Handler


__all__ = ["TOKEN", "HubServer", "blob_sha"]
