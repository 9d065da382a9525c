"""``RepoTask``: one task bundle behind a gym-style interface (``reset``, ``step``, ``answer_parser``,
``action_space``, ``id``; the seed documents' task interface, ``../shared/reference/gym-task-interface.txt``).

- ``reset()`` starts the agent's container the way Harbor does (the bundle's image, or its pinned
  ``[environment].docker_image``; no network for schema 1.3/1.4, the egress guard for layout 1.0; the agent's
  user) and returns the first observation: the instruction, the working directory, the step budget.
- ``step(action)`` runs one shell action (``bash -lc``) in that container as the agent's user and returns
  ``(observation, reward, done)``: the exit code and the last ``output_limit`` characters of its output, reward
  0.0, not done. ``SUBMIT`` (``answer_parser`` turns a reply into an action) ends the episode: the bundle's own
  verifier grades what is in the container (a separate verifier's container gets the task's artifacts, as Harbor
  copies them; a shared one runs ``tests/test.sh`` in the agent's container) and the reward is the one
  ``/logs/verifier/reward.txt`` holds (0.0 when none). The step that reaches ``max_env_steps`` submits too.
- ``close()`` (or leaving a ``with`` block, or the end of an episode) removes every container.

A container left by a script that never calls ``close()`` is removed when the task object is collected, or at
the interpreter's exit (``weakref.finalize``). ``RepoTasks`` serves a folder of tasks, one per ``reset``, as the
task-config file ``repo2rlenv export --format task-config`` writes names it (``task._target_:
repo2env.gym.RepoTasks``); ``RepoTask.from_reset`` rebuilds a task from a task bank's reset package.
"""

import inspect
import weakref
from pathlib import Path

import docker

from repo2env.bundles.find import find_tasks, has_tasks
from repo2env.bundles.hashing import bundle_hash
from repo2env.bundles.task_toml import agent_user, read_task_toml
from repo2env.checks.controls import grade_shared, shared_container
from repo2env.checks.separate_verifier import SeparateTrial, verifier_mode
from repo2env.core.errors import InputError
from repo2env.environment.containers import TaskContainer, docker_client
from repo2env.environment.images import run_image
from repo2env.export.task_bank import DEFAULT_MAX_STEPS as DEFAULT_MAX_ENV_STEPS
from repo2env.export.task_bank import exportable
from repo2env.gym.actions import SUBMIT, parse_action

WORKDIR = "/workspace"


class RepoTask:
    """A gym-style task over the bundle folder ``bundle`` (module docstring).

    ``max_env_steps``: actions before the episode is graded (default 100); ``output_limit``: characters of an
    action's output kept (its tail); ``step_timeout_sec``: one action's time limit (exit code 124 past it).
    Raises ``InputError`` when ``bundle`` is not a task folder or has no environment (a text-only task);
    ``docker.errors.DockerException`` and
    ``BuildError`` from ``reset`` when the engine or the image fails."""

    action_space = "text"  # a shell command, or SUBMIT

    def __init__(self, bundle: str | Path, *, max_env_steps: int = DEFAULT_MAX_ENV_STEPS, output_limit: int = 8000,
                 step_timeout_sec: float = 600, client: docker.DockerClient | None = None):
        self.bundle = Path(bundle).resolve()
        if not (self.bundle / "task.toml").is_file():
            hint = " (a folder of tasks: use RepoTasks)" if has_tasks(self.bundle) else ""
            raise InputError(f"{self.bundle}: not a task folder (no task.toml); pass a bundle generate wrote{hint}")
        if max_env_steps < 1:
            raise InputError(f"max_env_steps={max_env_steps}: give at least 1")
        self.config = read_task_toml(self.bundle)
        if not (self.bundle / "environment" / "Dockerfile").is_file() and not (
                self.config.get("environment") or {}).get("docker_image"):
            raise InputError(f"{self.bundle}: a text-only task (no environment/Dockerfile, no docker_image), which has "
                             "no container to step in; score answers with `repo2rlenv score`, or generate it with "
                             "its environment")
        self.id = self.bundle.name
        self.max_env_steps = max_env_steps
        self.output_limit = output_limit
        self.step_timeout_sec = step_timeout_sec
        self._client = client
        self._box: TaskContainer | None = None
        self._finalizer: weakref.finalize | None = None
        self._trial: SeparateTrial | None = None
        self.steps = 0
        self.done = False

    @classmethod
    def from_reset(cls, package: dict, tasks_dir: str | Path, **kwargs) -> "RepoTask":
        """The task a task bank's reset package (``harbor_reset``: ``task_spec.task_id`` and its
        ``bundle_hash``) names, found below ``tasks_dir``; ``max_env_steps`` from the package. Raises
        ``InputError`` when no bundle there has that id, or its hash differs (the bundle changed since the bank
        was written)."""
        spec = package.get("task_spec") if isinstance(package, dict) else None
        if not isinstance(spec, dict) or not {"task_id", "bundle_hash"} <= set(spec):
            raise InputError("the reset package has no task_spec with task_id and bundle_hash; pass a bank row's "
                             "harbor_reset")
        found = [t for t in find_tasks(Path(tasks_dir)) if t.name == spec["task_id"]]
        if not found:
            raise InputError(f"{tasks_dir}: no task {spec['task_id']}; pass the folder the bank was exported from")
        actual = bundle_hash(found[0])
        if actual != spec["bundle_hash"]:
            raise InputError(f"{found[0]}: bundle hash {actual} differs from the reset package's "
                             f"{spec['bundle_hash']}: the task changed after the bank was exported; measure it "
                             f"again (repo2rlenv restamp {found[0]} --run), then export the bank again")
        kwargs.setdefault("max_env_steps", int(package.get("max_steps") or DEFAULT_MAX_ENV_STEPS))
        return cls(found[0], **kwargs)

    @property
    def client(self) -> docker.DockerClient:
        if self._client is None:
            self._client = docker_client()
        return self._client

    @property
    def user(self) -> str:
        return agent_user(self.config)

    def reset(self, next_subtask: str | None = None) -> dict:
        """Start a fresh episode (any running container is removed first); ``next_subtask`` is ignored (one
        task per bundle). Returns ``{"task_id", "instruction", "workdir", "max_env_steps"}``."""
        self.close()
        self.steps, self.done = 0, False
        if verifier_mode(self.config) == "separate":
            self._trial = SeparateTrial(self.client, self.bundle, self.config, self.id)
            box = self._trial.agent_container()
        else:
            self._trial = None
            box = shared_container(self.client, self.bundle,
                                   run_image(self.client, self.bundle, self.config, self.id))
        self._box = box.__enter__()
        # removed however the script ends (no close(), an exception, the interpreter's exit)
        self._finalizer = weakref.finalize(self, box.__exit__, None, None, None)
        self._box.exec(["mkdir", "-p", "/logs/agent", "/logs/verifier"])
        return {"task_id": self.id, "instruction": (self.bundle / "instruction.md").read_text(encoding="utf-8"),
                "workdir": WORKDIR, "max_env_steps": self.max_env_steps}

    def answer_parser(self, raw_response: str) -> str:
        """The action in a model's raw reply (``repo2env.gym.actions``): a shell command, ``SUBMIT`` or ``""``."""
        return parse_action(raw_response)

    def step(self, action: str) -> tuple[dict, float, bool]:
        """Run ``action`` (module docstring). Returns ``(observation, reward, done)``. Raises ``RuntimeError``
        when called before ``reset`` or after the episode ended."""
        if self._box is None or self.done:
            raise RuntimeError(f"{self.id}: call reset() first (the episode is over or never started)")
        self.steps += 1
        if action.strip() == SUBMIT:
            return self._submit({"submitted": True, "step": self.steps,
                                 "steps_left": self.max_env_steps - self.steps})
        if not action.strip():
            observation = {"exit_code": None, "output": "No action found: reply with one ```bash``` block, or "
                           "SUBMIT when done.", "truncated": False}
        else:
            code, output, _ = self._box.exec(["bash", "-lc", action], timeout_sec=self.step_timeout_sec,
                                             user=self.user, tail=self.output_limit + 1)
            truncated = len(output) > self.output_limit
            observation = {"exit_code": code, "output": output[-self.output_limit:], "truncated": truncated}
        observation.update(step=self.steps, steps_left=self.max_env_steps - self.steps)
        if self.steps >= self.max_env_steps:
            return self._submit(dict(observation, submitted=True, reason="max_env_steps"))
        return observation, 0.0, False

    def _submit(self, observation: dict) -> tuple[dict, float, bool]:
        try:
            timeout = float((self.config.get("verifier") or {}).get("timeout_sec") or 600)
            if self._trial is not None:
                artifacts = self._trial.collect(self._box)
                self._close_box()  # the agent's container is gone before the verifier's starts, as in Harbor
                raw = self._trial.grade(artifacts, timeout)
            else:
                raw, _ = grade_shared(self._box, self.bundle, timeout)
        finally:
            self.close()
            self.done = True
        reward = _reward(raw)
        return dict(observation, reward=reward), reward, True

    def _close_box(self) -> None:
        if self._box is not None:
            self._box = None
            self._finalizer()  # removes the container, once

    def close(self) -> None:
        """Remove the episode's containers (nothing when none runs)."""
        self._close_box()

    def __enter__(self) -> "RepoTask":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _reward(raw: bytes | None) -> float:
    try:
        return float((raw or b"").decode().strip())
    except ValueError:
        return 0.0


class RepoTasks:
    """The tasks of a folder as one gym-style task whose ``reset(next_subtask)`` moves to the next bundle (or
    to the one named ``next_subtask``), as a dataset-level task of the interface does (its config's
    ``max_episodes`` is the number of tasks). Only bundles labelled ``verified`` are served, in task-id order.
    Other keyword arguments go to each ``RepoTask``. Raises ``InputError`` when ``tasks_dir`` holds none."""

    action_space = RepoTask.action_space

    def __init__(self, tasks_dir: str | Path, **task_kwargs):
        self.bundles, _ = exportable(Path(tasks_dir))
        if not self.bundles:
            raise InputError(f"{tasks_dir}: no verified task to serve")
        known = set(inspect.signature(RepoTask.__init__).parameters) - {"self", "bundle"}
        if set(task_kwargs) - known:
            raise InputError(f"{', '.join(sorted(set(task_kwargs) - known))}: not an option of RepoTask "
                             f"(options: {', '.join(sorted(known))})")
        self.task_kwargs = task_kwargs
        self.current: RepoTask | None = None
        self._next = 0

    @property
    def id(self) -> str | None:
        return self.current.id if self.current is not None else None

    def reset(self, next_subtask: str | None = None) -> dict:
        """The first observation of the next task (wrapping around), or of the task ``next_subtask``."""
        self.close()
        if next_subtask is not None:
            names = [b.name for b in self.bundles]
            if next_subtask not in names:
                raise InputError(f"{next_subtask}: not one of the {len(names)} tasks served")
            self._next = names.index(next_subtask)
        bundle = self.bundles[self._next % len(self.bundles)]
        self._next += 1
        self.current = RepoTask(bundle, **self.task_kwargs)
        return self.current.reset()

    def step(self, action: str) -> tuple[dict, float, bool]:
        """``RepoTask.step`` of the current task."""
        if self.current is None:
            raise RuntimeError("call reset() first")
        return self.current.step(action)

    def answer_parser(self, raw_response: str) -> str:
        return parse_action(raw_response)

    def close(self) -> None:
        if self.current is not None:
            self.current.close()
