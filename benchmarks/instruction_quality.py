"""How actionable the instructions of generated tasks are, before and after the observed-behaviour section.

    python benchmarks/instruction_quality.py TASKS_DIR [TASKS_DIR ...] [--show N]

For every Harbor 1.0 runtime bundle under the folders (``instruction.md``, ``tests/test.patch``,
``solution/patch.diff``, ``tests/f2p.json``), the instruction without the grader's closing paragraph is measured
twice: *before* is the text without its "## Observed behaviour" section (what the title and the maintainer's text
say on their own, as the instruction was made before ``instructions/observed.py``), *after* is the text as
shipped. Printed per folder and overall: tasks, median words, the share that states an input, a behaviour, an
expectation and all three (``instructions.actionability``), and the leak audit's findings on the shipped text
(``instructions.leak_audit``: grading test names and paths, references, SHAs, 8-token runs of the gold patch's
source files or of the test patch). ``--show N`` prints N instructions as shipped; ``--write DIR`` writes each to ``DIR/<task id>.md``.

``--rederive`` measures, instead of the shipped text, the instruction the current code makes from the inputs
the run kept (``<out>.logs/<task id>/instruction-inputs-1.json``: title, body, the tests' evidence), without a
model: a change to ``instructions/`` is measured on real tasks without running Docker again.
"""

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from repo2env import languages  # noqa: E402
from repo2env.changes.patches import is_docs_or_ci_path  # noqa: E402
from repo2env.instructions import actionability  # noqa: E402
from repo2env.instructions.leak_audit import AuditContext, added_lines, audit  # noqa: E402
from repo2env.instructions.make import make_instruction  # noqa: E402
from repo2env.instructions.observed import Evidence, observed_behaviour  # noqa: E402
from repo2env.tasks.runtime import GRADER_RULES  # noqa: E402


def _paths(patch: str) -> list[str]:
    return sorted({line[6:].strip() for line in patch.splitlines() if line.startswith("+++ b/")})


def measure(bundle: Path, rederive: bool = False) -> dict:
    """One bundle's figures: words and parts before/after, and the audit's findings on the shipped text (or,
    with ``rederive``, on the text the current code makes from the run's kept inputs)."""
    config = bundle / "tests" / "config.json"
    name = (json.loads(config.read_text()).get("language") if config.is_file() else None) or "python"
    language = languages.load(name)
    rules = getattr(language, "grader_rules", None) or GRADER_RULES  # the grading paragraph is not the problem
    text = (bundle / "instruction.md").read_text().replace(rules, "").rstrip() + "\n"
    test_patch = (bundle / "tests/test.patch").read_text(errors="replace")
    ids = json.loads((bundle / "tests/f2p.json").read_text())
    p2p = bundle / "tests/p2p.json"
    ids += json.loads(p2p.read_text()) if p2p.exists() else []
    gold = (bundle / "solution/patch.diff").read_text(errors="replace")
    sources = [p for p in _paths(gold) if not is_docs_or_ci_path(p)]  # as the pipelines audit: the fix's source
    ctx = AuditContext(test_ids=ids, hidden_paths=_paths(test_patch), test_added_lines=added_lines(test_patch),
                       gold_added_lines=added_lines(gold, sources))
    kept = bundle.parent.with_name(bundle.parent.name + ".logs") / bundle.name / "instruction-inputs-1.json"
    if rederive and kept.exists():
        inputs = json.loads(kept.read_text())
        seen = Evidence(**{k: (tuple(v) if k == "fail_to_pass" else v) for k, v in inputs["evidence"].items()})
        told = language.observed_behaviour(seen) if hasattr(language, "observed_behaviour") else \
            observed_behaviour(seen)
        text = make_instruction(inputs["title"], inputs["body"], ctx, observed_sentences=told).text
    before = text.split("## Observed behaviour", 1)[0].rstrip() + "\n"
    return {"task": bundle.name, "text": text,
            "before": {"words": actionability.words(before), "states": actionability.stated(before)},
            "after": {"words": actionability.words(text), "states": actionability.stated(text)},
            "findings": [f"{f.rule}: {f.text}" for f in audit(text, ctx)]}


def summary(rows: list[dict], when: str) -> str:
    if not rows:
        return "0 tasks"
    share = {p: sum(p in r[when]["states"] for r in rows) / len(rows) for p in actionability.PARTS}
    full = sum(len(r[when]["states"]) == 3 for r in rows) / len(rows)
    median = statistics.median(r[when]["words"] for r in rows)
    parts = " ".join(f"{p} {share[p]:4.0%}" for p in actionability.PARTS)
    return f"median words {median:5.1f} | {parts} | all three {full:4.0%}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--show", type=int, default=0, help="print N shipped instructions")
    parser.add_argument("--write", type=Path, help="also write each measured instruction to DIR/<task id>.md "
                                                    "(for a second reader)")
    parser.add_argument("--rederive", action="store_true", help="measure what the current code makes of the "
                                                                "run's kept inputs (no Docker)")
    args = parser.parse_args(argv)
    everything = []
    for folder in [f for f in args.folders if f.is_dir() and not f.name.endswith((".logs", ".staging", ".rejected",
                                                                                  ".reports"))]:
        rows = [measure(b, args.rederive) for b in sorted(folder.iterdir()) if (b / "tests/test.patch").exists()
                and (b / "instruction.md").exists()] if folder.is_dir() else []
        everything += rows
        leaks = sum(len(r["findings"]) for r in rows)
        print(f"{folder.name}: {len(rows)} tasks, {leaks} audit findings")
        print(f"  before  {summary(rows, 'before')}")
        print(f"  after   {summary(rows, 'after')}")
    print(f"ALL: {len(everything)} tasks, {sum(len(r['findings']) for r in everything)} audit findings")
    print(f"  before  {summary(everything, 'before')}")
    print(f"  after   {summary(everything, 'after')}")
    for row in everything:
        for finding in row["findings"]:
            print(f"  finding {row['task']}: {finding}")
    if args.write:
        args.write.mkdir(parents=True, exist_ok=True)
        for row in everything:
            (args.write / f"{row['task']}.md").write_text(row["text"])
    for row in everything[:args.show]:
        print(f"\n=== {row['task']} (states {', '.join(row['after']['states']) or 'nothing'})\n{row['text']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
