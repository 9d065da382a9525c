"""equivalence_tests on lazy results and value objects (tests/helpers/repos.py ``build_iter_repo``), in a real
Docker engine: a generator, an endless generator, a lazily raising generator, a dataclass return and a class
with ``__eq__`` become verified tasks whose expected outcomes are the items and values (never a repr with a
memory address); a random permutation is rejected as nondeterministic, with the disagreeing case named. All
functions are gated in one container."""

import json

import pytest

from repo2env.bundles.task_toml import read_task_toml
from repo2env.environment import containers
from repo2env.pipeline import GenerateOptions
from repo2env.run import ledger
from repo2env.run.generate import generate
from tests.helpers.repos import build_iter_repo

pytestmark = pytest.mark.docker


@pytest.fixture(scope="module")
def lazy_run(docker_client, tmp_path_factory):
    root = tmp_path_factory.mktemp("lazy")
    repo = build_iter_repo(root / "iterkit")
    out = root / "tasks"
    summary = generate("equivalence_tests", str(repo), GenerateOptions(probes=False, out=out))
    left = docker_client.containers.list(all=True, filters={"label": f"{containers.LABEL}={containers.RUN_ID}"})
    return out, summary, left


def _expected(out):
    found = {}
    for bundle in out.iterdir():
        function = read_task_toml(bundle)["metadata"]["repo2env"]["equivalence_tests"]["function"]
        found[function] = json.loads((bundle / "tests" / "cases.json").read_text())
    return found


def test_lazy_results_and_value_objects_become_tasks_and_randomness_does_not(lazy_run):
    out, summary, left = lazy_run
    found = _expected(out)
    assert sorted(found) == ["checked", "counting", "pairs", "ratio", "span_of"], (summary.skipped, summary.errors)
    assert dict(summary.skipped) == {"nondeterministic": 1} and not summary.rejected and not summary.errors
    [entry] = [e for e in ledger.read(ledger.ledger_path(out)) if e.status == "skipped"]
    assert entry.candidate == "fn:iterkit.core.shuffled" and '"first"' in entry.detail and '"second"' in entry.detail
    assert not left, "the gate's container of the revision is removed when the run ends"


def test_expected_outcomes_are_items_and_values(lazy_run):
    found = _expected(lazy_run[0])
    by_args = {name: {json.dumps(c["args"]): e for c, e in zip(data["cases"], data["expected"])}
               for name, data in found.items()}
    assert by_args["pairs"]["[[1, 2, 3]]"] == ["ok", {"$iter": [[{"$tuple": [1, 2]}, {"$tuple": [2, 3]}],
                                                                "exhausted"]}]
    endless = [e for e in found["counting"]["expected"] if e[0] == "ok"]
    assert endless and all(e[1]["$iter"][1] == "truncated" and len(e[1]["$iter"][0]) == 100 for e in endless)
    lazily = [e[1]["$iter"] for e in found["checked"]["expected"] if e[0] == "ok"]
    assert ["raise", "ValueError"] in [end for _, end in lazily] and "exhausted" in [end for _, end in lazily]
    assert [e for e in lazily if e[1] == ["raise", "ValueError"] and e[0]], "items before the error are kept"
    assert by_args["span_of"]["[[3, 1, 2]]"] == ["ok", {"$obj": ["Span", [["start", 1], ["end", 3]]]}]
    assert by_args["ratio"]["[2, 4]"] == ["ok", {"$obj": ["Ratio", [["den", 2], ["num", 1]]]}]
    for data in found.values():
        assert " at 0x" not in json.dumps(data["expected"])
