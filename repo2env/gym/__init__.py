"""A gym-style interface to task bundles (``reset``, ``step``, ``answer_parser``): ``task.RepoTask`` over one
bundle, ``task.RepoTasks`` over a folder of them, ``actions`` for the replies. See ``task``'s docstring."""

from repo2env.gym.actions import SUBMIT, parse_action
from repo2env.gym.task import RepoTask, RepoTasks

__all__ = ["SUBMIT", "RepoTask", "RepoTasks", "parse_action"]
