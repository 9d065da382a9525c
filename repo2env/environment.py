"""A task's environment, shared by every pipeline that ships one: the task image at the base commit (bootstrap
image + dependencies installed as of the commit's date), and the bundle's ``environment/`` folder (Dockerfile
``FROM`` that image with the history scrubbed to the base commit, and the compose file with the egress guard)."""

from dataclasses import dataclass

from . import images, templates
from .bundle import BundleStage
from .errors import BuildError
from .metadata import Reproducibility
from .models import InstallRecipe, RepoRef
from .outcomes import SkipReason
from .pipeline import BuildContext, Skip
from .recipe import detect_recipe


@dataclass(frozen=True)
class TaskImage:
    """The built task image for one base commit: its tag, the recipe and bootstrap image behind it, and how long
    the build took in seconds (0 when cached)."""

    image_ref: str
    recipe: InstallRecipe
    bootstrap: str
    build_seconds: float

    def reproducibility(self) -> Reproducibility:
        """``[metadata.repo2env.reproducibility]`` for a bundle built on this image."""
        return Reproducibility(image_ref=self.image_ref, python=self.recipe.python, bootstrap_image=self.bootstrap,
                               install_source=self.recipe.source, install_commands=list(self.recipe.commands),
                               exclude_newer=self.recipe.exclude_newer)


def build_task_image(ctx: BuildContext, repo: RepoRef, base_commit: str) -> TaskImage | Skip:
    """Detect the install recipe at ``base_commit`` and build (or reuse) the bootstrap and task images.
    A failed build is a ``Skip`` with ``env_build_failed``; engine errors raise."""
    recipe = detect_recipe(repo.path, base_commit, ctx.options.env_config.for_repo(repo.slug))
    try:
        ctx.report("bootstrap image")
        bootstrap = images.bootstrap_image(ctx.client, repo, recipe)
        ctx.report(f"task image at {base_commit[:12]}")
        image_ref, seconds = images.task_image(ctx.client, repo, base_commit, recipe, bootstrap)
    except BuildError as exc:
        return Skip(SkipReason.ENV_BUILD_FAILED, str(exc))
    return TaskImage(image_ref=image_ref, recipe=recipe, bootstrap=bootstrap, build_seconds=seconds)


def stage_environment(stage: BundleStage, image: TaskImage, base_commit: str) -> None:
    """Write ``environment/``: Dockerfile, scrub_history.sh and docker-compose.yaml (egress guard)."""
    stage.write_text("environment/Dockerfile", templates.render(
        "environment.Dockerfile", image_ref=image.image_ref, base_commit=base_commit))
    stage.write_text("environment/scrub_history.sh", templates.read("scrub_history.sh"), executable=True)
    stage.write_text("environment/docker-compose.yaml", templates.read("docker-compose.yaml"))
