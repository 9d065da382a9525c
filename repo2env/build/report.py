"""The build report: ``<out>/reports/<build_id>.json`` and ``.html``, and ``<out>/report.html`` (the latest).

Per repository and pipeline: candidates, verified, skipped by reason, rejected (failed controls), errors, wall
seconds and container test seconds (sums over the candidates' last runs), environment success (base commits
whose image built and ran the tests, of those tried) and the top environment failure reasons; per build: what ran, what was
unchanged; and the difference with the previous finished build (tasks added, removed, changed bundle hash).
The HTML page is static, no scripts, no network: a plain sentence on what the build did (or "Nothing new: ...;
nothing was rebuilt."), its id, start, end and wall time, then inline SVG bar charts of yield per
repository/pipeline and of time per task, and a table of where the time went by stage (``core.timings``; the
sum over the candidates' last runs). The charts size their name column and right margin from the longest
name and value label (``text_width``), so no text leaves the drawing. No LLM runs in a build, so ``cost_usd`` is
0 unless one is added.
"""

import html
import json
import math
import unicodedata
from collections import Counter, defaultdict
from datetime import datetime
from pathlib import Path

from repo2env.core.timings import STAGES
from repo2env.run.incremental import generate_state_path
from repo2env.run.state import STATE_FILE, State


def locate(folder: Path) -> tuple[Path, Path, Path]:
    """(state database, report page, reports folder) of ``folder``: a ``build`` dataset folder keeps them inside
    (``state.sqlite``, ``report.html``, ``reports/``); a ``generate --out`` folder beside it
    (``<out>.state.sqlite``, ``<out>.report.html``, ``<out>.reports/``), so its folder holds only tasks.
    Raises ``FileNotFoundError`` when neither state exists."""
    if (folder / STATE_FILE).is_file():
        return folder / STATE_FILE, folder / "report.html", folder / "reports"
    beside = generate_state_path(folder)
    if beside.is_file():
        return beside, folder.parent / (folder.name + ".report.html"), folder.parent / (folder.name + ".reports")
    raise FileNotFoundError(folder / STATE_FILE)


def build_report(out: Path) -> dict:
    """The report data of the dataset folder ``out`` (its latest build or generate run; ``locate``). Raises
    ``FileNotFoundError`` when it has no state."""
    path = locate(out)[0]
    with State(path) as state:
        rows, builds = state.rows(), state.builds()
        latest = builds[-1] if builds else None
        sources = state.sources(latest["build_id"]) if latest else []
    groups: dict = defaultdict(lambda: {"candidates": 0, "verified": 0, "rejected": Counter(), "skipped": Counter(),
                                        "errors": 0, "wall_seconds": 0.0, "test_seconds": 0.0, "env_ok": 0,
                                        "env_tried": 0, "env_failures": Counter(), "instructions": []})
    per_task = []
    stages: Counter = Counter()
    for row in rows:
        stages.update(json.loads(row["timings"]) if row.get("timings") else {})
        g = groups[(row["repo"], row["pipeline"])]
        g["candidates"] += 1
        if row.get("environment"):
            g["env_tried"] += 1
            g["env_ok"] += row["environment"] == "ok"
            if row["environment"] == "failed":
                g["env_failures"][env_cause(row["reason"], row["detail"])] += 1
        g["wall_seconds"] += row["seconds"] or 0.0
        g["test_seconds"] += row["test_seconds"] or 0.0
        if row["status"] == "verified":
            g["verified"] += 1
            if row.get("instruction"):
                g["instructions"].append(json.loads(row["instruction"]))
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
    for g in groups.values():
        g["instructions"] = instruction_counts(g.pop("instructions"))
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
        "stages": {k: round(stages[k], 3) for k in (*STAGES, *sorted(set(stages) - set(STAGES))) if k in stages},
    }


def instruction_counts(rows: list[dict]) -> dict:
    """``{"tasks", "median_words", "input", "behaviour", "expectation", "observed"}`` over verified tasks'
    instruction records (``instructions.actionability``)."""
    words = sorted(r.get("words") or 0 for r in rows)
    median = (words[len(words) // 2] if len(words) % 2 else (words[len(words) // 2 - 1] + words[len(words) // 2]) / 2
              ) if words else 0
    out = {"tasks": len(rows), "median_words": median, "observed": sum(1 for r in rows if r.get("observed"))}
    out.update({part: sum(part in (r.get("states") or []) for r in rows) for part in ("input", "behaviour",
                                                                                    "expectation")})
    return out


def env_cause(reason: str | None, detail: str | None) -> str:
    """One short line for an environment failure: its reason code and the cause in its detail, without the
    image tag and the list of rungs (``env_build_failed: No solution found when resolving dependencies``)."""
    text = (detail or "").split(" (rungs tried:", 1)[0]
    if " failed: " in text and text.startswith("building "):
        text = text.split(" failed: ", 1)[1]
    return f"{reason}: {text.strip()[:100]}" if text.strip() else str(reason)


# The charts' text: a monospace font, so a label's width follows from its length. CHAR_EM is a little above the
# advance of the common monospace fonts (DejaVu Sans Mono 0.602 em, Liberation Mono and Courier 0.6 em).
FONT_SIZE = 13
CHAR_EM = 0.62
ROW_HEIGHT = 22
NAME_CHARS = 48  # longer row names are shortened in the middle with an ellipsis (the full name is in <title>)
BAR_AREA = 320  # pixels of the longest bar
GAP = 8
OUTCOME_WORDS = {"verified": "verified", "rejected": "rejected by the controls", "skipped": "skipped",
                 "error": "error"}


def text_width(text: str, font_size: float = FONT_SIZE) -> float:
    """Estimated width in pixels of ``text`` in the charts' monospace font (East Asian wide characters count
    twice)."""
    cells = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
    return cells * CHAR_EM * font_size


def _shorten(name: str, limit: int = NAME_CHARS) -> str:
    if len(name) <= limit:
        return name
    head = (limit - 1) // 2
    return name[:head] + "\u2026" + name[len(name) - (limit - 1 - head):]


def _bars(items: list[tuple[str, float, str]], top: float | None = None) -> str:
    """A horizontal bar chart of ``(name, value, value label)`` rows; ``top`` is the value of a full bar (the
    largest value when None). The name column is as wide as the longest (shortened) name and the right margin as
    wide as the longest value label, so no text leaves the drawing or runs over a bar."""
    if not items:
        return "<p>(none)</p>"
    top = top or max(max(v, 0.0) for _, v, _ in items) or 1.0
    short = [_shorten(name) for name, _, _ in items]
    bar_x = math.ceil(max(text_width(s) for s in short)) + GAP
    value_x = bar_x + BAR_AREA + GAP // 2
    width = value_x + math.ceil(max(text_width(label) for _, _, label in items)) + GAP
    height = ROW_HEIGHT * len(items) + 4
    font = f'font-family="DejaVu Sans Mono, Liberation Mono, Menlo, Consolas, monospace" font-size="{FONT_SIZE}"'
    rows = []
    for i, ((name, value, label), name_shown) in enumerate(zip(items, short)):
        y = i * ROW_HEIGHT
        length = round(BAR_AREA * min(max(value, 0.0), top) / top)
        rows.append(f'<g><title>{html.escape(name)}: {html.escape(label)}</title>'
                    f'<text x="0" y="{y + 15}" {font}>{html.escape(name_shown)}</text>'
                    f'<rect x="{bar_x}" y="{y + 3}" width="{length}" height="16" fill="#4a7"/>'
                    f'<text x="{bar_x + length + GAP // 2}" y="{y + 15}" {font}>{html.escape(label)}</text></g>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img">{"".join(rows)}</svg>')


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _percent(fraction: float) -> str:
    return f"{round(100 * fraction)} %"


def _duration(seconds: float | None) -> str:
    seconds = max(seconds or 0.0, 0.0)
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 60:
        return f"{seconds:.0f} s"
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def _moment(stamp: str | None) -> str:
    if not stamp:
        return "-"
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.utcoffset() is not None and not moment.utcoffset():
        return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    return moment.isoformat(sep=" ")


def summary_sentence(build: dict | None) -> str:
    """One plain sentence on what ``build`` (a ``State.builds()`` item) did, e.g. "144 candidates: 3 built (2
    verified, 1 skipped), 141 unchanged since the last build." or, when it rebuilt nothing, "Nothing new: 144
    candidates unchanged since the last build; nothing was rebuilt." (plain text, not escaped)."""
    if not build:
        return "No build is recorded in this state yet."
    if not build.get("finished_at") or build.get("counts") is None:
        return ("This build has not finished (it is still running, or it was stopped); the figures below are the "
                "state so far.")
    counts = dict(build["counts"])
    candidates, unchanged = int(counts.pop("candidates", 0)), int(counts.pop("unchanged", 0))
    built = sum(int(v) for v in counts.values())
    if candidates == 0 and built == 0:
        return "No candidates were found; nothing was built."
    if built == 0:
        return (f"Nothing new: {_plural(candidates, 'candidate')} unchanged since the last build; "
                "nothing was rebuilt.")
    order = [k for k in OUTCOME_WORDS if k in counts] + sorted(k for k in counts if k not in OUTCOME_WORDS)
    parts = []
    for key in order:
        if counts[key]:
            word = OUTCOME_WORDS.get(key, key.replace("_", " "))
            parts.append(_plural(int(counts[key]), "error") if key == "error" else f"{counts[key]} {word}")
    return (f"{_plural(candidates, 'candidate')}: {built} built ({', '.join(parts)}), {unchanged} unchanged "
            "since the last build.")


def _header(report: dict) -> str:
    esc = html.escape
    build = report["build"] or {}
    failed = [s for s in report["sources"] if s["status"] != "ok"]
    sentence = summary_sentence(report["build"])
    if failed:
        sentence += f" {_plural(len(failed), 'source')} could not be planned (listed below)."
    rows = [("Build", esc(str(build.get("build_id") or "-"))),
            ("Started", esc(_moment(build.get("started_at")))),
            ("Finished", esc(_moment(build.get("finished_at")))),
            ("Wall time", esc(_duration(build.get("wall_seconds"))) if build.get("finished_at") else "-"),
            ("Candidates", esc(f"shard {build['shard']} of the candidates") if build.get("shard")
             else "all candidates")]
    table = "".join(f"<tr><th>{name}</th><td>{value}</td></tr>" for name, value in rows)
    totals = report["totals"]
    dataset = (f"The dataset now holds {_plural(totals['verified'], 'verified task')} from "
               f"{_plural(totals['candidates'], 'candidate')}; container test time "
               f"{esc(_duration(totals['container_test_seconds']))}; LLM cost ${report['cost_usd']:.2f}.")
    return (f'<p class="verdict">{esc(sentence)}</p>\n<table class="facts">{table}</table>\n'
            f'<p class="dataset">{dataset}</p>')


def _diff(report: dict) -> str:
    esc = html.escape
    diff, previous = report["diff"], report["previous_build"]
    if previous is None:
        intro = "<p>There is no earlier finished build to compare with; every task counts as added.</p>"
    else:
        intro = ""
    parts = [intro]
    for name in ("added", "removed", "changed"):
        names = diff[name]
        if not names:
            parts.append(f"<h3>{name} (0)</h3><p>none</p>")
            continue
        more = f"<li>\u2026 and {len(names) - 200} more</li>" if len(names) > 200 else ""
        parts.append(f"<h3>{name} ({len(names)})</h3><ul>"
                     f"{''.join(f'<li>{esc(t)}</li>' for t in names[:200])}{more}</ul>")
    return "".join(parts)


def _instructions_cell(counts: dict) -> str:
    n = counts.get("tasks", 0)
    if not n:
        return ""
    return (f"{counts['median_words']:g} words; {counts['input']} / {counts['behaviour']} / {counts['expectation']} "
            f"of {n}")


def _stages(stages: dict) -> str:
    if not stages:
        return "<p>no stage timings recorded</p>"
    total = sum(stages.values()) or 1.0
    rows = "".join(f'<tr><td>{html.escape(k)}</td><td class="n">{v:,.1f} s</td><td class="n">{v / total:.0%}</td></tr>'
                   for k, v in stages.items())
    return ("<p>Each candidate's stages, added up over the candidates: candidates built at the same time "
            "(--jobs) overlap, so the total can exceed the wall time.</p>"
            f"<table><tr><th>stage</th><th>seconds (summed)</th><th>share</th></tr>{rows}</table>")


def render_html(report: dict) -> str:
    """The static HTML page of ``report`` (no scripts, no network; every text from the data is escaped)."""
    esc = html.escape
    build = report["build"] or {}
    head = ("<tr><th>repository</th><th>pipeline</th><th>candidates</th><th>verified</th><th>yield</th>"
            "<th>skipped (by reason)</th><th>failed controls</th><th>errors</th><th>wall s</th><th>test s</th>"
            "<th>environments</th><th>top environment failures</th><th>instructions (median words; input / "
            "behaviour / expectation stated)</th></tr>")
    num = '<td class="n">'
    body = "".join(
        f"<tr><td>{esc(g['repo'])}</td><td>{esc(g['pipeline'])}</td>{num}{g['candidates']}</td>"
        f"{num}{g['verified']}</td>{num}{esc(_percent(g['yield']))}</td>"
        f"<td>{esc(', '.join(f'{k} {v}' for k, v in sorted(g['skipped'].items())))}</td>"
        f"<td>{esc(', '.join(f'{k} {v}' for k, v in sorted(g['rejected'].items())))}</td>{num}{g['errors']}</td>"
        f"{num}{g['wall_seconds']:.0f}</td>{num}{g['test_seconds']:.0f}</td>"
        f"{num}{g['env_ok']} of {g['env_tried']}</td>"
        f"<td>{esc('; '.join(f'{k} ({v})' for k, v in Counter(g['env_failures']).most_common(3)))}</td>"
        f"<td>{esc(_instructions_cell(g['instructions']))}</td></tr>"
        for g in report["groups"])
    failed = [s for s in report["sources"] if s["status"] != "ok"]
    sources_html = "".join(f"<li>{esc(s['repo'])} ({esc(s['pipeline'])}): {esc(s['detail'] or '')}</li>"
                           for s in failed)
    yields = [(f"{g['repo']} ({g['pipeline']})", 100 * g["yield"], _percent(g["yield"])) for g in report["groups"]]
    slowest = sorted(report["tasks"], key=lambda t: (-t["seconds"], t["task"]))[:60]
    times = [(t["task"], t["seconds"], f"{t['seconds']:,.1f} s") for t in slowest]
    shown = (f"the {len(slowest)} slowest of {len(report['tasks'])}" if len(slowest) < len(report["tasks"])
             else f"all {len(slowest)}")
    build_id = esc(str(build.get("build_id") or ""))
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>repo2rlenv build {build_id}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px}}th{{text-align:left}}td.n{{text-align:right;white-space:nowrap}}
.verdict{{font-size:1.15em;font-weight:bold}}svg{{max-width:100%;height:auto}}</style>
</head><body>
<h1>repo2rlenv build {build_id}</h1>
{_header(report)}
{'<h2>Sources that failed</h2><ul>' + sources_html + '</ul>' if failed else ''}
<h2>Per repository and pipeline</h2><table>{head}{body}</table>
<h2>Yield (verified of candidates)</h2>{_bars(yields, top=100.0)}
<h2>Time per verified task ({shown})</h2>{_bars(times)}
<h2>Where the time went (all candidates' last runs, by stage)</h2>{_stages(report.get("stages") or {})}
<h2>Since the previous build ({esc(str(report['previous_build'] or 'none'))})</h2>{_diff(report)}
</body></html>
"""


def write_report(out: Path) -> dict:
    """Write the latest build's report files into ``out`` (module docstring); returns the report."""
    report = build_report(out)
    _, page_path, folder = locate(out)
    build_id = (report["build"] or {}).get("build_id", "none").replace(":", "")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{build_id}.json").write_text(json.dumps(report, indent=1, sort_keys=True) + "\n")
    page = render_html(report)
    (folder / f"{build_id}.html").write_text(page)
    tmp = page_path.parent / (page_path.name + ".tmp")
    tmp.write_text(page)
    tmp.replace(page_path)
    report["page"] = str(page_path)
    return report
