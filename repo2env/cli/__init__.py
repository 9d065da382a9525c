"""The ``repo2rlenv`` command line (rich-click), one module per command group: ``generate`` (generate,
pipelines), ``validate`` (validate, hash, restamp, score), ``publish`` (push, pull), ``export`` (export),
``build`` (build, report, merge), ``clean`` (clean); ``app`` holds the group and the output contract (stdout, stderr, ``--json``, exit
codes). The only place that prints or exits: library errors (``R2EError``) become one line on stderr and their
exit code."""

import signal
import sys

import rich_click as click
from rich.markup import escape

from repo2env.cli import build, clean, export, generate, publish, validate  # noqa: F401 - each registers its commands
from repo2env.cli.app import cli, error_console
from repo2env.core.errors import R2EError

__all__ = ["cli", "main", "console_main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns the exit code (callable from tests)."""
    try:
        cli.main(args=argv, prog_name="repo2rlenv", standalone_mode=False)
    except click.exceptions.Abort:
        error_console.print("aborted")
        return 130
    except click.exceptions.UsageError as exc:  # one line, as every other error: what and where to look
        where = f"repo2rlenv {exc.ctx.info_name} --help" if exc.ctx is not None and exc.ctx.parent is not None \
            else "repo2rlenv --help"
        error_console.print(f"[red]error:[/red] {escape(exc.format_message())} (see `{where}`)", highlight=False,
                            soft_wrap=True)
        return exc.exit_code
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except R2EError as exc:
        error_console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        return exc.exit_code
    except SystemExit as exc:
        return int(exc.code or 0)
    except OSError as exc:  # a file system problem outside --out's checks: one line, not a traceback
        error_console.print(f"[red]error:[/red] {escape(str(exc))}", highlight=False, soft_wrap=True)
        return 1
    return 0


def _terminate_as_interrupt(signum, frame) -> None:
    """SIGTERM (a service manager stopping a nightly, ``kill``) ends a run the way Ctrl-C does: the same clean-up
    (no staged bundle, lock file or half-written state left) and exit code 130."""
    raise KeyboardInterrupt


def console_main() -> None:  # pragma: no cover - the console script
    signal.signal(signal.SIGTERM, _terminate_as_interrupt)
    sys.exit(main())
