"""The build report: ``<out>/reports/<build_id>.json`` and ``.html``, and ``<out>/report.html`` (the latest).

Per repository and pipeline: candidates, verified, skipped by reason, rejected (failed controls), errors, wall
seconds and container test seconds (sums over the candidates' last runs); per build: what ran, what was
unchanged; and the difference with the previous finished build (tasks added, removed, changed bundle hash).
The HTML page is static (inline SVG bar charts of yield per repository/pipeline and of time per task), no
scripts, no network. No LLM runs in a build, so ``cost_usd`` is 0 unless one is added.
"""

import html
import json
from collections import Counter, defaultdict
from pathlib import Path

from repo2env.build.state import STATE_FILE, State


def build_report(out: Path) -> dict:
    """The report data of the dataset folder ``out`` (its latest build). Raises ``FileNotFoundError`` when it has
    no state."""
    path = out / STATE_FILE
    if not path.is_file():
        raise FileNotFoundError(path)
    with State(path) as state:
        rows, builds = state.rows(), state.builds()
        latest = builds[-1] if builds else None
        sources = state.sources(latest["build_id"]) if latest else []
    groups: dict = defaultdict(lambda: {"candidates": 0, "verified": 0, "rejected": Counter(), "skipped": Counter(),
                                        "errors": 0, "wall_seconds": 0.0, "test_seconds": 0.0})
    per_task = []
    for row in rows:
        g = groups[(row["repo"], row["pipeline"])]
        g["candidates"] += 1
        g["wall_seconds"] += row["seconds"] or 0.0
        g["test_seconds"] += row["test_seconds"] or 0.0
        if row["status"] == "verified":
            g["verified"] += 1
            per_task.append({"task": f"{row['pipeline']}/{row['task_id']}", "seconds": row["seconds"] or 0.0})
        elif row["status"] == "rejected":
            g["rejected"][row["reason"]] += 1
        elif row["status"] == "skipped":
            g["skipped"][row["reason"]] += 1
        else:
            g["errors"] += 1
    finished = [b for b in builds if b["finished_at"]]
    now = finished[-1]["tasks"] if finished else {}
    before = finished[-2]["tasks"] if len(finished) > 1 else {}
    diff = {"added": sorted(set(now) - set(before)), "removed": sorted(set(before) - set(now)),
            "changed": sorted(t for t in set(now) & set(before) if now[t] != before[t])}
    return {
        "build": latest, "previous_build": finished[-2]["build_id"] if len(finished) > 1 else None,
        "sources": sources,
        "groups": [{"repo": repo, "pipeline": pipeline, **{k: (dict(v) if isinstance(v, Counter) else
                                                               round(v, 3) if isinstance(v, float) else v)
                                                           for k, v in g.items()},
                    "yield": round(g["verified"] / g["candidates"], 3) if g["candidates"] else 0.0}
                   for (repo, pipeline), g in sorted(groups.items())],
        "tasks": per_task, "diff": diff, "cost_usd": 0.0,
        "totals": {"candidates": len(rows), "verified": sum(g["verified"] for g in groups.values()),
                   "container_test_seconds": round(sum(g["test_seconds"] for g in groups.values()), 3)},
    }


def _bars(items: list[tuple[str, float]], unit: str, width: int = 520) -> str:
    if not items:
        return "<p>(none)</p>"
    top = max(v for _, v in items) or 1.0
    rows = []
    for i, (label, value) in enumerate(items):
        y = i * 22
        length = int((width - 260) * value / top)
        rows.append(f'<text x="0" y="{y + 15}" font-size="12">{html.escape(label[:38])}</text>'
                    f'<rect x="250" y="{y + 3}" width="{length}" height="16" fill="#4a7"/>'
                    f'<text x="{255 + length}" y="{y + 15}" font-size="12">{value:g}{unit}</text>')
    return f'<svg width="{width}" height="{22 * len(items) + 4}" role="img">{"".join(rows)}</svg>'


def render_html(report: dict) -> str:
    """The static HTML page of ``report``."""
    esc = html.escape
    build = report["build"] or {}
    head = ("<tr><th>repository</th><th>pipeline</th><th>candidates</th><th>verified</th><th>yield</th>"
            "<th>skipped (by reason)</th><th>failed controls</th><th>errors</th><th>wall s</th><th>test s</th></tr>")
    body = "".join(
        f"<tr><td>{esc(g['repo'])}</td><td>{esc(g['pipeline'])}</td><td>{g['candidates']}</td>"
        f"<td>{g['verified']}</td><td>{g['yield']:.0%}</td>"
        f"<td>{esc(', '.join(f'{k} {v}' for k, v in sorted(g['skipped'].items())))}</td>"
        f"<td>{esc(', '.join(f'{k} {v}' for k, v in sorted(g['rejected'].items())))}</td><td>{g['errors']}</td>"
        f"<td>{g['wall_seconds']:.0f}</td><td>{g['test_seconds']:.0f}</td></tr>" for g in report["groups"])
    diff = report["diff"]
    diff_html = "".join(f"<h3>{name} ({len(diff[name])})</h3><ul>{''.join(f'<li>{esc(t)}</li>' for t in diff[name][:200])}</ul>"
                        for name in ("added", "removed", "changed"))
    failed = [s for s in report["sources"] if s["status"] != "ok"]
    sources_html = "".join(f"<li>{esc(s['repo'])} ({esc(s['pipeline'])}): {esc(s['detail'] or '')}</li>" for s in failed)
    counts = build.get("counts") or {}
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>repo2rlenv build {esc(str(build.get('build_id', '')))}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}td,th{{border:1px solid #ccc;padding:3px 8px}}</style>
</head><body>
<h1>repo2rlenv build {esc(str(build.get('build_id', '')))}</h1>
<p>started {esc(str(build.get('started_at')))}, finished {esc(str(build.get('finished_at')))}, shard {esc(str(build.get('shard') or 'all'))},
wall {build.get('wall_seconds') or 0:.0f} s. This build: {esc(json.dumps(counts, sort_keys=True))}.
Dataset: {report['totals']['verified']} verified of {report['totals']['candidates']} candidates;
container test time {report['totals']['container_test_seconds']:.0f} s; LLM cost ${report['cost_usd']:.2f}.</p>
{'<h2>Sources that failed</h2><ul>' + sources_html + '</ul>' if failed else ''}
<h2>Per repository and pipeline</h2><table>{head}{body}</table>
<h2>Yield</h2>{_bars([(f"{g['repo']} {g['pipeline']}", round(100 * g['yield'])) for g in report['groups']], '%')}
<h2>Time per verified task</h2>{_bars([(t['task'], round(t['seconds'], 1)) for t in report['tasks'][:60]], ' s')}
<h2>Since the previous build ({esc(str(report['previous_build']))})</h2>{diff_html}
</body></html>
"""


def write_report(out: Path) -> dict:
    """Write the latest build's report files into ``out`` (module docstring); returns the report."""
    report = build_report(out)
    build_id = (report["build"] or {}).get("build_id", "none")
    folder = out / "reports"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{build_id}.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    page = render_html(report)
    (folder / f"{build_id}.html").write_text(page)
    tmp = out / "report.html.tmp"
    tmp.write_text(page)
    tmp.replace(out / "report.html")
    return report
