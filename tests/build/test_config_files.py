"""specs/dataset.schema.json and specs/env-config.schema.json are generated from the models that read the files
(repo2env/build/config.py); dataset.toml takes every option generate takes, under the flag's own name."""

import json
from pathlib import Path

from repo2env.build.config import BuildConfig, LlmSpec, PipelineSpec, SetupLlmSpec, SourceSpec, json_schemas, load
from repo2env.build.runner import options_for
from repo2env.cli.generate import generate_cmd

SPECS = Path(__file__).resolve().parents[2] / "specs"
NOT_IN_A_FILE = {"source", "pipeline_name", "out", "dry_run", "force", "as_json", "quiet", "verbose",
                 "bundle_format", "pipeline_opts", "prs"}  # the command's own, or spelled otherwise (below)
SPELLED = {"bundle_format": "format", "pipeline_opts": "pipeline_opts", "prs": "prs"}


def test_schemas_do_not_drift():
    for name, schema in json_schemas().items():
        on_disk = json.loads((SPECS / name).read_text())
        assert on_disk == schema, f"regenerate: python -m repo2env.build.config specs ({name})"


def _keys() -> set[str]:
    keys = set(BuildConfig.model_fields) | set(SourceSpec.model_fields) | set(PipelineSpec.model_fields)
    keys |= {f"llm_{k}" for k in LlmSpec.model_fields} | {"llm"} | {f"setup_llm_{k}" for k in SetupLlmSpec.model_fields}
    return keys | {"setup_llm", "env_config"}


def test_every_generate_option_has_a_dataset_toml_key():
    names = {p.name for p in generate_cmd.params}
    keys = _keys()
    missing = sorted(n for n in names - NOT_IN_A_FILE if n not in keys)
    assert missing == [], missing
    assert all(SPELLED[n] in keys for n in SPELLED)


def test_a_full_dataset_toml_becomes_generate_options(tmp_path):
    (tmp_path / "repo2env.toml").write_text('[repos."acme/calc"]\nmemory_mb = 8192\ncpus = 2\n')
    (tmp_path / "dataset.toml").write_text('''
out = "ds"
dataset_name = "calc-tasks"
env_config = "repo2env.toml"
keep_rejected = true
min_actionability = 2

[[sources]]
source = "acme/calc"
pipelines = ["commit_runtime"]
prs = [3]
repo_name = "acme/calc"
labels = ["bug"]

[pipelines.commit_runtime]
options = { all_parents = "true" }
pipeline_opts = { include_types = "fix" }

[llm]
model = "anthropic/claude-sonnet-4-6"
budget_usd = 1.5
price = "3/15"

[setup_llm]
model = "anthropic/claude-sonnet-4-6"
attempts = 3
''')
    config = load(tmp_path / "dataset.toml")
    options = options_for(config, 0, "commit_runtime")
    assert options.dataset_name == "calc-tasks" and options.keep_rejected and options.min_actionability == 2
    assert options.pipeline_opts == {"all_parents": "true", "include_types": "fix"}  # the former name still read
    assert options.numbers == (3,) and options.repo_name == "acme/calc" and options.pr_filters.labels == ("bug",)
    assert options.llm.name == "anthropic/claude-sonnet-4-6" and options.llm.budget_usd == 1.5
    assert (options.llm.price_in, options.llm.price_out) == (3.0, 15.0)
    assert options.setup_llm is not None and options.setup_llm_attempts == 3
    assert options.env_config.for_repo("acme/calc").memory_mb == 8192
