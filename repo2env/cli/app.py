"""The ``repo2rlenv`` command group and the output contract every command follows.

* Results go to **stdout** (``out_console``, or ``click.echo``): text, or one JSON document with ``--json``
  (every command has it).
* Progress and warnings go to **stderr** (``err_console``; ``-q`` silences them, ``-v`` adds every stage of
  every candidate and the library's debug log). Errors go to stderr too (``error_console``), whatever ``-q``
  says.
* ``-h``/``--help`` on every command; ``-q``/``-v`` before or after the command name.
* Exit codes: 0 done; 1 something failed (a candidate error, a failed check, a differing hash); 2 bad input
  (``InputError``: a path, an option value, a config file); 3 Docker unavailable; 130 interrupted (Ctrl-C).

Help is rendered by rich-click (option panels and examples in each command's epilog), a drop-in for click.
"""

import json
import logging

import rich_click as click
from rich.console import Console
from rich.logging import RichHandler

from repo2env import __version__

out_console = Console(soft_wrap=True)  # results (stdout)
err_console = Console(stderr=True)  # progress and warnings (stderr; -q silences it)
error_console = Console(stderr=True)  # errors (stderr, always)

CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 110}
click.rich_click.TEXT_MARKUP = "rich"
click.rich_click.SHOW_ARGUMENTS = True
click.rich_click.OPTIONS_PANEL_TITLE = "Other options"

EXIT_CODES = {0: "done", 1: "something failed (a candidate error, a failed check, a differing hash)",
              2: "bad input (a path, an option value, a config file)", 3: "Docker is unavailable",
              130: "interrupted (Ctrl-C)"}


def _quiet(ctx, param, value) -> None:
    if value:
        err_console.quiet = True


VERBOSE: list[bool] = []  # set by -v: progress prints every stage of every candidate too


def _verbose(ctx, param, value) -> None:
    if value:
        logging.getLogger("repo2env").setLevel(logging.DEBUG)
        VERBOSE[:] = [True]


def output_options(command=None, *, verbose: bool = True):
    """``-q``/``--quiet`` and ``-v``/``--verbose`` on a command (they also work before the command name);
    ``verbose=False`` for a command whose own ``--verbose`` means more results."""
    if command is None:
        return lambda c: output_options(c, verbose=verbose)
    if verbose:
        command = click.option("-v", "--verbose", is_flag=True, expose_value=False, callback=_verbose,
                               help="More detail on stderr: every stage of every candidate, the library's debug "
                               "log.")(command)
    return click.option("-q", "--quiet", is_flag=True, expose_value=False, callback=_quiet,
                        help="No progress or warnings on stderr: results and errors only.")(command)


def json_option(command):
    """``--json``: print the command's result as one JSON document on stdout (parameter ``as_json``)."""
    return click.option("--json", "as_json", is_flag=True, help="Print the result as JSON on stdout.")(command)


def emit_json(data) -> None:
    """One JSON document on stdout (sorted keys, paths and dates as strings)."""
    click.echo(json.dumps(data, indent=1, sort_keys=True, default=str))


def examples(*lines: str, note: str = ""):
    """A command's epilog: "Examples", one command per line as written, then ``note`` (a rich ``Text``, which
    rich-click renders as it is instead of reflowing its lines)."""
    from rich.text import Text  # noqa: PLC0415

    text = Text("Examples\n", style="bold")
    for line in lines:
        text.append(f"  {line}\n", style="cyan")
    if note:
        text.append(f"\n{note}")
    return text


@click.group(context_settings=CONTEXT_SETTINGS, epilog=examples(
    "repo2rlenv generate --pipeline pr_runtime ./clone --out ./tasks",
    "repo2rlenv generate --pipeline pr_runtime org/repo --limit 50 --dry-run",
    "repo2rlenv build dataset.toml --jobs 2 && repo2rlenv report ./dataset",
    "repo2rlenv validate ./tasks --run --in-place",
    note="Exit codes: 0 done, 1 something failed, 2 bad input, 3 Docker unavailable, 130 interrupted. "
         "Shell completion: eval \"$(_REPO2RLENV_COMPLETE=bash_source repo2rlenv)\" (or zsh_source, "
         "fish_source)."))
@click.version_option(__version__, prog_name="repo2rlenv")
@click.option("-q", "--quiet", is_flag=True, expose_value=False, callback=_quiet,
              help="No progress or warnings on stderr: results and errors only.")
@click.option("-v", "--verbose", is_flag=True, expose_value=False, callback=_verbose,
              help="More detail on stderr: every stage of every candidate, the library's debug log.")
def cli() -> None:
    """Turn repositories into verifiable Harbor tasks for coding agents: merged PRs and commits become task
    bundles whose oracle scores 1.0 and whose nop scores 0.0 in Docker."""
    _show_library_log()


def _show_library_log() -> None:
    """Library progress that is not per candidate (cloning, rate-limit waits) goes to the ``repo2env`` logger;
    show it on stderr, through the same console as the progress bar."""
    logger = logging.getLogger("repo2env")
    if not any(isinstance(h, RichHandler) for h in logger.handlers):
        logger.addHandler(RichHandler(console=err_console, show_time=False, show_path=False, markup=False))
        if logger.level == logging.NOTSET:
            logger.setLevel(logging.INFO)
