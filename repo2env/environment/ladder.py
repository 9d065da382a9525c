"""The fallback ladder: the install recipes tried for one base commit, in order, until one builds and runs the tests.

Order: the plan the environment memory recalls for the repository (same deciding files, else the nearest earlier
base commit), then the language's rungs (Python: the chosen Python, it with the build tools floored, the next
Python down, ...), then, when every rung failed and ``--setup-llm`` was given, the setup agent's proposals. Two
feedback loops add one rung each at the front: the plan with the system packages a failed install says it lacks
(a compiler, headers), and the plan with what a first test run said was missing. Every rung tried is
an ``Attempt``, recorded in ``[metadata.repo2env.reproducibility] attempts`` (outside the bundle hash: how the
recipe was found, not what it is). A Python without a base image is skipped without a build.

``EnvironmentSearch`` is language-neutral; a language plugin without ``recipe_rungs`` gets one rung, its
``install_recipe``.
"""

import re
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass

from repo2env.core.errors import BuildError

# A build log that says a host could not be reached (pip, uv, git, a build back end fetching at build time).
NEEDS_NETWORK = re.compile(r"Temporary failure in name resolution|Could not resolve host|Name or service not known|"
                           r"Network is unreachable|getaddrinfo failed|nodename nor servname|"
                           r"Failed to establish a new connection|dns error", re.I)
from repo2env.core.outcomes import SkipReason
from repo2env.core.records import InstallRecipe, RepoRef, Skip
from repo2env.environment import images
from repo2env.environment.task_image import TaskImage, build_task_image

# Image builds per base commit from the ladder (rungs whose Python has no base image are not builds; the
# feedback rung and the setup agent's proposals come on top). A failing install usually fails in seconds.
MAX_BUILDS = 6
MAX_INSTALL_FEEDBACK = 3

@dataclass
class Attempt:
    """One rung tried: its label, the Python, and ``outcome``: ``ok``, ``install_failed``, ``tests_broken``,
    ``python_unavailable``, or ``superseded`` (ran, then the feedback rung replaced it); ``detail`` one line."""

    rung: str
    python: str
    outcome: str
    detail: str = ""
    plan: dict | None = None
    base_image: str | None = None  # a toolchain language's image (``InstallRecipe.base_image``); None: Python's

    def record(self) -> dict:
        """The ``[metadata.repo2env.reproducibility] attempts`` row (the plan stays out)."""
        return {"rung": self.rung, "python": self.python, "outcome": self.outcome, "detail": self.detail[:300]}


class EnvironmentSearch:
    """Iterate over it for the recipes to try; report each one's fate with ``build``, ``broken``, ``feedback``
    and ``accept``; ``give_up`` makes the Skip when none worked. ``ctx`` is the run's ``BuildContext``."""

    def __init__(self, ctx, language, repo: RepoRef, commit: str):
        self.ctx, self.language, self.repo, self.commit = ctx, language, repo, commit
        self.override = ctx.options.env_config.for_repo(repo.slug)
        self.attempts: list[Attempt] = []
        self.key, self.why = "", ""
        self.fed_back = False
        self.install_fed = 0
        self.proposals = 0
        self.last_error = ""
        self.recalled: str | None = None
        self._tried: list[dict] = []
        self._identities: set = set()
        if hasattr(language, "recipe_rungs"):
            plans, self.why, self.key = language.recipe_rungs(repo.path, commit, self.override)
        else:
            plans = [None]
        self.allowed = {p["python"] for p in plans if p}
        memory = getattr(ctx, "env_memory", None)
        if memory is not None and plans and plans[0] is not None:
            self.date = _commit_date(repo.path, commit)
            recalled = memory.recall(repo.slug, language.name, self.key, self.date)
            if recalled:
                plan, self.recalled = recalled
                plan = {k: v for k, v in plan.items() if k != "if"}  # tried first, whatever came before
                if plan.get("python") not in self.allowed:  # a nearer commit's Python this one does not allow
                    plan = {**plans[0], "add": plan.get("add") or {}}
                plans = [plan] + plans
        self.queue: deque = deque(plans)

    def _recipe(self, plan) -> InstallRecipe:
        if plan is None:
            return self.language.install_recipe(self.repo.path, self.commit, self.override)
        return self.language.install_recipe(self.repo.path, self.commit, self.override, plan)

    def __iter__(self) -> Iterator[InstallRecipe]:
        while self.queue:
            plan = self.queue.popleft()
            recipe = None if plan in self._tried else self._worth_trying(plan)
            if recipe is None:
                continue
            if sum(a.outcome != "python_unavailable" for a in self.attempts) >= \
                    MAX_BUILDS + self.fed_back + self.install_fed:
                break
            self._tried.append(plan)
            yield recipe
        while self._propose():  # the setup agent's plans, within its own budget
            plan = self.queue.popleft()
            self._tried.append(plan)
            yield self._recipe(plan)

    def _worth_trying(self, plan) -> InstallRecipe | None:
        """The recipe of ``plan``, or None when it is not worth a build: a plan marked ``"if": [outcomes]`` runs
        only when the plain rung of the same Python ended in one of them; one whose Python has been seen without
        a base image is passed over, and so is a plan whose recipe is one already tried (a floor that changes
        nothing for this commit)."""
        if not isinstance(plan, dict):
            return self._recipe(plan)
        same = [a for a in self.attempts if a.python == plan.get("python")]
        if any(a.outcome == "python_unavailable" for a in same):
            return None
        wanted = plan.get("if")
        plain = next((a for a in same if a.plan == {"python": plan.get("python")}), None)
        if wanted is not None and not (plain is not None and plain.outcome in wanted):
            return None
        recipe = self._recipe(plan)
        identity = (recipe.python, recipe.commands, recipe.apt_packages, tuple(sorted(recipe.env.items())))
        if identity in self._identities:
            return None
        self._identities.add(identity)
        return recipe

    network_needed = False  # a build failed on name resolution: the ladder stopped

    def _propose(self) -> bool:
        """Ask the setup agent for the next plan (queued); False when there is none to ask or it had nothing."""
        if self.network_needed:
            return False
        agent = getattr(self.ctx, "setup_agent", None)
        last = next((a for a in reversed(self.attempts) if a.outcome in ("install_failed", "tests_broken")), None)
        if agent is None or last is None or not hasattr(self.language, "plan_from_proposal") \
                or self.proposals >= agent.max_proposals or not self._tried or self._tried[-1] is None:
            return False
        self.proposals += 1
        self.ctx.report(f"setup agent: proposal {self.proposals}")
        base = self._tried[-1]
        proposal = agent.propose(self.language.setup_files(self.repo.path, self.commit), self._recipe(base),
                                 self.last_error, [a.rung + ": " + a.outcome for a in self.attempts])
        plan = self.language.plan_from_proposal(base, proposal) if proposal else None
        if plan is None or plan in self._tried:
            return False
        self.queue.appendleft(plan)
        return True

    def build(self, recipe: InstallRecipe) -> TaskImage | None:
        """Build the task image of ``recipe``; None when it failed (recorded: the Python has no base image, or
        the install failed). ``DockerUnavailable`` propagates."""
        base = images.recipe_base_image(recipe)
        if not images.image_exists(self.ctx.client, base):
            self._record(recipe, "python_unavailable", f"no base image {base}")
            return None
        self.ctx.report(f"environment: {recipe.rung or recipe.python}")
        try:
            image = build_task_image(self.ctx.client, self.repo, self.commit, recipe, self.ctx.report)
        except BuildError as exc:
            self.last_error = exc.log_tail or str(exc)
            if NEEDS_NETWORK.search(self.last_error):  # every rung would need the same network: stop here
                self._record(recipe, "install_failed", "the install needs a network host this machine cannot "
                             f"reach (no other rung can change that): {exc}")
                self.queue.clear()
                self.network_needed = True
                return None
            self._record(recipe, "install_failed", str(exc))
            self._install_feedback(recipe)
            return None
        return image

    def _install_feedback(self, recipe: InstallRecipe) -> None:
        """When the failed install says what system packages it lacks (a compiler, a library's headers), the
        same plan with them is tried next; up to ``MAX_INSTALL_FEEDBACK`` times per base commit (a compiler
        first, then the headers its next attempt asks for)."""
        if self.install_fed >= MAX_INSTALL_FEEDBACK or not recipe.plan \
                or not hasattr(self.language, "install_feedback"):
            return
        plan = self.language.install_feedback(recipe.plan, self.last_error)
        if plan is not None and plan not in self._tried:
            self.install_fed += 1
            self.queue.appendleft(plan)

    def broken(self, recipe: InstallRecipe, detail: str) -> None:
        """The image built but the tests could not run in it (``detail``: why); the next rung comes next."""
        self.last_error = detail
        self._record(recipe, "tests_broken", detail)

    def feedback(self, recipe: InstallRecipe, runs, broken: str | None = None) -> bool:
        """Once per base commit: when the ``runs`` with the fix say something is missing that the language can
        add, queue that plan first and return True (the caller runs again with it). ``broken``: why the runs
        were of no use (then the rung is recorded as ``tests_broken``, not ``superseded``)."""
        if self.fed_back or not hasattr(self.language, "recipe_feedback") or not recipe.plan:
            return False
        skips = {k: v for run in runs for k, v in run.skip_messages.items()}
        errors = {k: v for run in runs for k, v in {**run.collection_messages, **run.error_messages}.items()}
        plan = self.language.recipe_feedback(self.repo.path, self.commit, recipe.plan, skips, errors)
        if plan is None or plan in self._tried:
            return False
        self.fed_back = True
        added = ", ".join(f"{kind} {name}" for kind, names in sorted((plan.get("add") or {}).items())
                          for name in sorted(names) if name not in ((recipe.plan.get("add") or {}).get(kind) or {}))
        if broken:
            self.last_error = broken
            self._record(recipe, "tests_broken", f"{broken}; the feedback loop adds {added}")
        else:
            self._record(recipe, "superseded", f"tests ran; the feedback loop adds {added}")
        self.queue.appendleft(plan)
        return True

    def keep_previous(self, recipe: InstallRecipe) -> None:
        """The feedback rung failed: the previous (superseded) rung, ``recipe``, stands; it is remembered."""
        for attempt in reversed(self.attempts):
            if attempt.outcome == "superseded":
                attempt.outcome = "ok"
                break
        self._remember(recipe)

    def accept(self, recipe: InstallRecipe) -> None:
        """``recipe`` built and ran the tests: record it and remember its plan for the repository."""
        self._record(recipe, "ok", self.recalled and f"first tried: {self.recalled}" or "")
        self._remember(recipe)

    def _remember(self, recipe: InstallRecipe) -> None:
        self.ctx.environment = "ok"
        memory = getattr(self.ctx, "env_memory", None)
        if memory is not None and recipe.plan and self.key:
            memory.remember(self.repo.slug, self.language.name, self.key, self.commit,
                            getattr(self, "date", None) or _commit_date(self.repo.path, self.commit), recipe.plan)

    def _record(self, recipe: InstallRecipe, outcome: str, detail: str) -> None:
        self.attempts.append(Attempt(rung=recipe.rung or recipe.python, python=recipe.python, outcome=outcome,
                                     detail=detail, plan={k: v for k, v in recipe.plan.items() if k != "if"}
                                     if recipe.plan else None, base_image=recipe.base_image))

    def records(self) -> list[dict]:
        """The attempts as ``[metadata.repo2env.reproducibility] attempts`` rows."""
        return [a.record() for a in self.attempts]

    def give_up(self, last_skip: Skip | None = None) -> Skip:
        """The Skip when no rung worked: ``python_unavailable`` when no allowed Python has a base image (or none
        is allowed), ``last_skip`` (the runtime's own reason) when the last rung's tests could not run, else
        ``env_build_failed``; the detail names the rungs tried and the last error."""
        self.ctx.environment = "failed"
        tried = ", ".join(f"{a.rung} ({a.outcome.replace('_', ' ')})" for a in self.attempts)
        if not self.attempts:
            return Skip(SkipReason.PYTHON_UNAVAILABLE, self.why or "no Python allowed")
        if all(a.outcome == "python_unavailable" for a in self.attempts) and self.attempts[0].base_image:
            return Skip(SkipReason.TOOLCHAIN_UNAVAILABLE, f"{self.attempts[0].detail}: run `bash "
                        "scripts/setup_docker.sh` on a host that has the toolchain")
        if all(a.outcome == "python_unavailable" for a in self.attempts):
            versions = ", ".join(dict.fromkeys(a.python for a in self.attempts))
            first = self.attempts[0].python
            return Skip(SkipReason.PYTHON_UNAVAILABLE,
                        f"needs Python {versions} ({self.why}); no base image for it: install CPython {first} "
                        f"(pyenv install {first}) and run `R2E_PYTHONS={first} bash scripts/setup_docker.sh`")
        last = next(a for a in reversed(self.attempts) if a.outcome != "python_unavailable")
        if last.outcome == "tests_broken" and last_skip is not None:
            return Skip(last_skip.reason, f"{last_skip.detail} (rungs tried: {tried})")
        return Skip(SkipReason.ENV_BUILD_FAILED, f"{last.detail} (rungs tried: {tried})")


def first_image(ctx, language, repo: RepoRef, commit: str) -> tuple[TaskImage, EnvironmentSearch] | Skip:
    """The task image of the first rung that builds (for pipelines whose environment need not run the tests
    before it is kept: pr_diff, equivalence_tests), with the search that found it; else the Skip."""
    search = EnvironmentSearch(ctx, language, repo, commit)
    for recipe in search:
        image = search.build(recipe)
        if image is not None:
            search.accept(recipe)
            return image, search
    return search.give_up()


def _commit_date(repo_path, commit: str) -> str:
    from repo2env.core import gitrepo

    return gitrepo.commit_date_iso(repo_path, commit)
