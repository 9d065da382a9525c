"""Files shipped into images and bundles are real files in ``templates/``; this module reads and fills them.

Filling uses ``string.Template.substitute``: a placeholder without a value raises ``KeyError`` (never a silent
blank). Static files (``solve.sh``, ``scrub_history.sh``, ``docker-compose.yaml``) are copied as-is.
"""

from importlib import resources
from string import Template


def read(name: str) -> str:
    """The template ``name`` as text (LF line endings, as stored)."""
    return resources.files("repo2env").joinpath("templates", name).read_text(encoding="utf-8")


def render(name: str, **values: str) -> str:
    """Fill ``${placeholders}`` of template ``name``. Raises ``KeyError`` for a placeholder with no value."""
    return Template(read(name)).substitute(values)
