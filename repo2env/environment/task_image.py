"""A task's environment, shared by every pipeline that ships one: the task image at the base commit (bootstrap
image + dependencies installed as of the commit's date), and the bundle's ``environment/`` folder (Dockerfile
``FROM`` that image with the history scrubbed to the base commit, and the compose file with the egress guard)."""

from collections.abc import Callable
from dataclasses import dataclass
from repo2env.bundles.stage import BundleStage
from repo2env.core import gitrepo, templates
from repo2env.core.metadata import Reproducibility
from repo2env.core.records import InstallRecipe, RepoRef
from repo2env.environment import egress, images


@dataclass(frozen=True)
class TaskImage:
    """The built task image for one base commit: its tag, the recipe and bootstrap image behind it, and how long
    the build took in seconds (0 when cached)."""

    image_ref: str
    recipe: InstallRecipe
    bootstrap: str
    build_seconds: float
    submodules: tuple = ()  # ({"path", "commit", "included"}, ...): gitlinks of the base commit

    @property
    def missing_submodules(self) -> list[str]:
        """Paths of the submodules whose content is not in the image (not initialised in the source clone)."""
        return [s["path"] for s in self.submodules if not s["included"]]

    def reproducibility(self, attempts: list[dict] | None = None) -> Reproducibility:
        """``[metadata.repo2env.reproducibility]`` for a bundle built on this image; ``attempts``: the rungs of
        the fallback ladder tried (``environment.ladder``)."""
        return Reproducibility(image_ref=self.image_ref, python=self.recipe.python, bootstrap_image=self.bootstrap,
                               install_source=self.recipe.source, install_commands=list(self.recipe.commands),
                               exclude_newer=self.recipe.exclude_newer, rung=self.recipe.rung or None,
                               recipe=[part.model_dump() for part in self.recipe.parts] or None,
                               attempts=attempts or None,
                               submodules=[dict(s) for s in self.submodules] or None)


def build_task_image(client, repo: RepoRef, base_commit: str, recipe: InstallRecipe,
                     report: Callable[[str], None] = lambda message: None) -> TaskImage:
    """Build (or reuse) the bootstrap and task images of ``recipe`` at ``base_commit``; ``report(message)`` tells
    progress. Raises ``BuildError`` for a failed build (callers skip the candidate with ``env_build_failed``)
    and ``DockerUnavailable`` for engine errors."""
    report("bootstrap image")
    bootstrap = images.bootstrap_image(client, repo, recipe)
    report(f"task image at {base_commit[:12]}")
    submodules = gitrepo.submodule_state(repo.path, base_commit)
    image_ref, seconds = images.task_image(client, repo, base_commit, recipe, bootstrap, submodules)
    return TaskImage(image_ref=image_ref, recipe=recipe, bootstrap=bootstrap, build_seconds=seconds,
                     submodules=tuple(submodules))


def stage_environment(stage: BundleStage, image: TaskImage, base_commit: str, language) -> dict[str, str]:
    """Write ``environment/``: Dockerfile, scrub_history.sh and docker-compose.yaml (the egress guard for
    ``language``, a plugin: ``egress.stage_compose``). Returns the guard's host map (``extra_hosts``: name ->
    address), which generation-time test runs use too."""
    stage.write_text("environment/Dockerfile", templates.render(
        "environment.Dockerfile", image_ref=image.image_ref, base_commit=base_commit))
    stage.write_text("environment/scrub_history.sh", templates.read("scrub_history.sh"), executable=True)
    return egress.stage_compose(stage, language)
