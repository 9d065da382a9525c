"""``repo2rlenv push`` and ``pull``: images to a registry, the dataset to the Hub or a git remote, and back."""


import sys
from pathlib import Path

import rich_click as click

from repo2env.cli.app import cli, emit_json, err_console, json_option, output_options
from repo2env.core.errors import InputError, redact_url
from repo2env.environment.containers import docker_client


@cli.command("push")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--registry", help="Where images go: HOST[:PORT]/PATH, e.g. ghcr.io/acme/r2e or localhost:5000/r2e.")
@click.option("--dataset", "dataset_target", help="Publish the dataset: hf://OWNER/NAME or git+URL "
              "(git+file:///srv/datasets/d.git, git+https://…).")
@click.option("--registry-username", help="Registry user (default: the docker config's credentials).")
@click.option("--registry-password-stdin", is_flag=True, help="Read the registry password from standard input.")
@click.option("--image-visibility", type=click.Choice(["private", "public"]), default="private", show_default=True,
              help="Recorded in each task; also the Hub dataset's visibility when it is created.")
@click.option("--partial", is_flag=True, help="Replace each task as soon as it is pushed (default: all or none).")
@click.option("--harbor-registry", type=click.Path(path_type=Path, dir_okay=False),
              help="Also write the dataset into this Harbor registry.json (created or updated), so that "
              "`harbor run -d NAME --registry-path FILE` runs it: tasks from the --dataset git remote, else "
              "this folder. The tasks' images must be in a registry: give --registry (or push them before).")
@click.option("--harbor-dataset", default=None, metavar="NAME[@VERSION]",
              help="The dataset's name and version in --harbor-registry (default: FOLDER's name, @head).")
@json_option
@output_options
def push_cmd(folder, registry, dataset_target, registry_username, registry_password_stdin, image_visibility,
             partial, harbor_registry, harbor_dataset, as_json) -> None:
    """Push the images of the tasks in FOLDER, pin each task to its image digest, and publish the dataset."""
    from repo2env.publish.push import push
    from repo2env.publish.registry import RegistryAuth, check_registry

    from repo2env.publish.harbor_registry import parse_dataset

    if registry is None and dataset_target is None and harbor_registry is None:
        raise InputError("push needs --registry, --dataset, --harbor-registry or some of them")
    if harbor_dataset is not None and harbor_registry is None:
        raise InputError("--harbor-dataset names the dataset in --harbor-registry; give --harbor-registry FILE")
    dataset_name = parse_dataset(harbor_dataset) if harbor_dataset is not None else None
    if harbor_registry is not None and dataset_target is not None and dataset_target.startswith("hf://"):
        raise InputError("--harbor-registry: Harbor's JSON registry names git repositories, not Hub datasets; "
                         "publish with --dataset git+URL, or leave --dataset out to name the folder")
    if registry_password_stdin and not registry_username:
        raise InputError("--registry-password-stdin needs --registry-username")
    password = sys.stdin.read().rstrip("\n") if registry_password_stdin else None
    auth = RegistryAuth(username=registry_username, password=password)
    registry = check_registry(registry) if registry is not None else None
    client = docker_client() if registry is not None else None
    with err_console.status("pushing") as status:
        result = push(folder.resolve(), registry=registry, auth=auth, dataset_target=dataset_target,
                      visibility=image_visibility, partial=partial, client=client,
                      report=lambda message: status.update(f"pushing: {message}"),
                      harbor_registry=harbor_registry.resolve() if harbor_registry else None,
                      harbor_dataset=dataset_name)
    if as_json:
        emit_json({"tasks": list(result.tasks), "stale": list(result.stale), "failed": dict(result.failed),
                   "published": result.published, "dataset": redact_url(dataset_target) if dataset_target else None,
                   "harbor_registry": result.harbor_entry,
                   "stats": result.stats.describe()})
        if result.failed:
            sys.exit(1)
        return
    click.echo(f"{len(result.tasks)} task(s) pinned to registry images; {result.stats.describe()}")
    if result.stale:
        click.echo(f"{len(result.stale)} evaluation label(s) marked stale (the bundle changed); run "
                   "`repo2rlenv validate --run --in-place` to measure them again")
    for task_id, reason in sorted(result.failed.items()):
        click.echo(f"failed: {task_id}: {reason}")
    if result.failed:
        click.echo("nothing was published; fix the failures and run the same command again (finished tasks are "
                   "kept)" if not partial else "the failed tasks were left as they were; nothing was published")
        sys.exit(1)
    if result.published is not None:
        count = len(result.manifest["tasks"])
        click.echo(f"dataset {redact_url(dataset_target)}: {count} tasks, commit {result.published}")
    if result.harbor_entry is not None:
        entry = result.harbor_entry
        click.echo(f"Harbor registry {harbor_registry}: {entry['name']}@{entry['version']}, {len(entry['tasks'])} "
                   f"tasks (harbor run -d {entry['name']}@{entry['version']} --registry-path {harbor_registry})")


@cli.command("pull")
@click.argument("source")
@click.argument("dest", type=click.Path(path_type=Path))
@json_option
@output_options
def pull_cmd(source, dest, as_json) -> None:
    """Fetch the dataset SOURCE (hf://OWNER/NAME or git+URL) into the new folder DEST and check every bundle
    hash against its manifest."""
    from repo2env.publish.dataset import pull

    manifest = pull(source, dest.resolve())
    if as_json:
        emit_json({"tasks": len(manifest["tasks"]), "dest": str(dest / "tasks"), "hashes_match": True})
        return
    click.echo(f"{len(manifest['tasks'])} tasks in {dest / 'tasks'}, every bundle hash matches the manifest")
