"""specs/metadata.schema.json is generated from repo2env/core/metadata.py; the file must not drift."""

import json
from pathlib import Path

import jsonschema

from repo2env.core.metadata import json_schema

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "specs" / "metadata.schema.json"


def test_schema_file_matches_the_models():
    on_disk = json.loads(SCHEMA_FILE.read_text())
    assert on_disk == json_schema(), "regenerate: python -m repo2env.core.metadata > specs/metadata.schema.json"


def test_schema_rejects_a_missing_pipeline():
    example = {"pipeline_version": "1", "repo": "a/b", "ref": "0" * 40, "built_at": "2025-01-01T00:00:00Z",
               "reward_kinds": ["test_execution"], "spec_version": "0.2.0",
               "reproducibility": {"image_ref": "i", "python": "3.12", "bootstrap_image": "b", "install_source": "s",
                                   "install_commands": []},
               "evaluation": {"status": "verified", "stage": "generation", "reason_codes": []}}
    validator = jsonschema.Draft202012Validator(json_schema())
    errors = [e.message for e in validator.iter_errors(example)]
    assert errors == ["'pipeline' is a required property"]
    assert not list(validator.iter_errors(dict(example, pipeline="pr_runtime")))
