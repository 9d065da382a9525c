"""The ``repo2rlenv`` command group and the console every command prints through (stderr; the progress bar
shares it)."""


import logging

import click
from rich.console import Console
from rich.logging import RichHandler

from repo2env import __version__

err_console = Console(stderr=True)


@click.group()
@click.version_option(__version__, prog_name="repo2rlenv")
def cli() -> None:
    """Turn repositories into verifiable Harbor tasks for coding agents."""
    _show_library_log()


def _show_library_log() -> None:
    """Library progress that is not per candidate (cloning, rate-limit waits) goes to the ``repo2env`` logger;
    show it on stderr, through the same console as the progress bar."""
    logger = logging.getLogger("repo2env")
    if not any(isinstance(h, RichHandler) for h in logger.handlers):
        logger.addHandler(RichHandler(console=err_console, show_time=False, show_path=False, markup=False))
        logger.setLevel(logging.INFO)
