"""The environment config file: per-repository overrides of the detected environment (TOML, read with tomllib).

Example ``repo2env.toml``::

    [repos."acme/widgets"]
    python = "3.12"
    apt_packages = ["libxml2-dev"]
    install = ["uv pip install --system -e '.[test]' pytest==8.3.5"]
    env = { WIDGETS_OFFLINE = "1" }

Unknown keys are refused, so a typo fails loudly instead of being ignored.
"""

import tomllib
from pathlib import Path

from pydantic import ValidationError

from repo2env.core.errors import InputError
from repo2env.core.records import EnvConfig, RepoEnvConfig

__all__ = ["EnvConfig", "RepoEnvConfig", "load_env_config"]


def load_env_config(path: Path | None) -> EnvConfig:
    """Read ``path`` (None: no overrides). Raises ``InputError`` naming the file and the first problem."""
    if path is None:
        return EnvConfig()
    try:
        data = tomllib.loads(path.read_bytes().decode("utf-8"))
        return EnvConfig.model_validate(data)
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text; save the environment config as UTF-8") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read the environment config ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML ({exc})") from None
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise InputError(f"{path}: {where}: {err['msg']}") from None
