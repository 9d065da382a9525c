"""One exception hierarchy for the library; the CLI maps it to one-line messages and exit codes.

The library raises and never prints or exits. Messages name the input and say what to do, and never carry a
secret (tokens are not part of any message built here).
"""

import re


class R2EError(Exception):
    """Base class. ``str(err)`` is the one-line message shown to the user; ``exit_code`` the CLI's exit status."""

    exit_code = 1


class InputError(R2EError):
    """Bad user input: a path that is not a repository, an unknown ``--pr``, a malformed option (exit 2)."""

    exit_code = 2


class DockerUnavailable(R2EError):
    """No Docker engine answers, or the base image is missing (exit 3)."""

    exit_code = 3


class FatalSourceError(R2EError):
    """The source stopped answering for the rest of the run (e.g. an exhausted API rate limit): the run ends
    instead of recording the same failure for every remaining candidate."""


class PipelineNotFound(InputError):
    """``--pipeline NAME`` names no installed plugin of the ``repo2env.pipelines`` entry-point group."""


class GitError(R2EError):
    """A git command failed on a repository the user gave us; the message names the repository and command."""


class BuildError(R2EError):
    """An image build failed for one task. Recorded in the ledger for that task; the run goes on."""

    def __init__(self, message: str, log_tail: str = ""):
        super().__init__(message)
        self.log_tail = log_tail


class TestRunError(R2EError):
    """The test runner could not run inside a task container (no JUnit XML, a patch that did not apply)."""


_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]+@")


def redact_url(text: str) -> str:
    """``text`` with the user and password of every URL in it replaced by ``***`` (``https://***@host/...``):
    a source or dataset URL may carry a token, which must never reach a message, a log or a file."""
    return _USERINFO.sub(r"\1***@", text)


def strip_userinfo(url: str) -> str:
    """``url`` without the user and password it may carry (``https://host/...``): for a URL written into a
    file (a Harbor registry entry), where even ``***`` would not clone."""
    return _USERINFO.sub(r"\1", url)
