"""specs/task-bank.schema.json and specs/task-definition.schema.json are generated from
repo2env/export/task_bank.py; the files must not drift, and a bank line that breaks the schema is reported."""

import json
from pathlib import Path

from repo2env.export.task_bank import check_export, schemas

SPECS = Path(__file__).resolve().parents[2] / "specs"


def test_schema_files_match_the_models():
    for name, schema in schemas().items():
        assert json.loads((SPECS / name).read_text()) == schema, \
            "regenerate: python -m repo2env.export.task_bank"


def test_a_row_without_a_verifier_id_and_a_duplicate_are_reported(tmp_path):
    bank = tmp_path / "bank.jsonl"
    bank.write_text('{"task_id": "a", "instruction": "x", "max_steps": 3}\nnot json\n')
    count, problems = check_export(bank)
    assert count == 2
    assert any(p.startswith(f"{bank}:1: (top): 'verifier_id' is a required property") for p in problems), problems
    assert any(p.startswith(f"{bank}:2: not JSON") for p in problems), problems
