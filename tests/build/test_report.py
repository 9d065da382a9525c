"""The build report (repo2env/build/report.py) from a real state database written as the runner writes it: the
header says in words what the build did (and plainly when it rebuilt nothing), and no chart text leaves its SVG
drawing or runs over the bars, whatever the values (0 %, 83 %, 100 %, long names, many digits of seconds)."""

import html
import json
import re
import xml.etree.ElementTree as ET
from datetime import datetime

import pytest

from repo2env.build.report import build_report, render_html, write_report
from repo2env.run.state import STATE_FILE, State

SVG = "{http://www.w3.org/2000/svg}"
CHAR_EM = 0.6  # a conservative width estimate of one character, in em
LONG_REPO = "an-organisation-with-a-rather-long-name/a-repository-whose-name-goes-on-and-on-and-on"
LONG_TASK = "calc-demo-pr-123456-a-very-long-task-identifier-that-would-not-fit-in-any-name-column"
FIRST, SECOND = "20250601T020000-aaaaaa", "20250602T020000-bbbbbb"

# (repo, pipeline, key, status, reason, seconds): local/alpha yields 5 of 6 (83 %), local/beta 2 of 2 (100 %),
# local/zero 0 of 2 (0 %), the long name 1 of 3 (33 %).
CANDIDATES = (
    [("local/alpha", "pr_runtime", f"pr#{n}", "verified", None, 40.0 + n) for n in range(1, 6)]
    + [("local/alpha", "pr_runtime", "pr#6", "skipped", "docs_ci_only", 1.5),
       ("local/beta", "pr_runtime", "pr#1", "verified", None, 123456.7),
       ("local/beta", "pr_runtime", "pr#2", "verified", None, 0.0),
       ("local/zero", "commit_runtime", "c1", "skipped", "no_fail_to_pass", 3.0),
       ("local/zero", "commit_runtime", "c2", "rejected", "gold_fails", 9.0),
       (LONG_REPO, "equivalence_tests", "f1", "verified", None, 12.0),
       (LONG_REPO, "equivalence_tests", "f2", "error", "crashed", 2.0),
       (LONG_REPO, "equivalence_tests", "f3", "error", "crashed", 2.0)])


def _row(repo, pipeline, key, status, reason, seconds, build_id):
    task_id = (LONG_TASK if seconds == 12.0 else f"{repo.split('/')[-1]}-{key.replace('#', '-')}")
    verified = status == "verified"
    return {"repo": repo, "pipeline": pipeline, "key": key, "fingerprint": f"sha256:{repo}{key}",
            "task_id": task_id if verified else None, "status": status, "reason": reason,
            "detail": "<b>detail</b>" if reason else None, "bundle_hash": f"sha256:{key}" if verified else None,
            "seconds": seconds, "test_seconds": seconds / 2, "build_id": build_id,
            "timings": json.dumps({"test runs": seconds / 2, "controls": seconds / 4, "other": seconds / 4})}


def _first_build(out):
    """The first build of every candidate, written with the calls the runner makes."""
    out.mkdir()
    with State(out / STATE_FILE) as state:
        state.start_build(FIRST, None)
        for repo, pipeline in sorted({(c[0], c[1]) for c in CANDIDATES}):
            state.record_source(FIRST, repo, pipeline, "ok", None, sum(c[:2] == (repo, pipeline) for c in CANDIDATES))
        state.record_source(FIRST, "local/gone", "pr_runtime", "error", "<script>alert(1)</script> not found", 0)
        for candidate in CANDIDATES:
            state.record(_row(*candidate, FIRST))
        counts = {"verified": 8, "skipped": 2, "rejected": 1, "error": 2, "unchanged": 0, "candidates": 13}
        state.finish_build(FIRST, 754.2, counts)


@pytest.fixture
def first(tmp_path):
    """A dataset folder after one build of all 13 candidates."""
    out = tmp_path / "dataset"
    _first_build(out)
    return out


def _second_build(out, rebuilt, wall):
    """A second build that ran ``rebuilt`` candidates again (same outcomes) and left the others unchanged."""
    with State(out / STATE_FILE) as state:
        state.start_build(SECOND, None)
        for candidate in rebuilt:
            state.record(_row(*candidate, SECOND))
        outcomes = {}
        for candidate in rebuilt:
            outcomes[candidate[3]] = outcomes.get(candidate[3], 0) + 1
        state.finish_build(SECOND, wall, dict(outcomes, unchanged=len(CANDIDATES) - len(rebuilt),
                                              candidates=len(CANDIDATES)))


def _verdict(page):
    return html.unescape(re.search(r'<p class="verdict">(.*?)</p>', page, re.DOTALL).group(1))


def _facts(page):
    table = re.search(r'<table class="facts">(.*?)</table>', page, re.DOTALL).group(1)
    return {html.unescape(k): html.unescape(v) for k, v in re.findall(r"<tr><th>(.*?)</th><td>(.*?)</td></tr>", table)}


def _started(out, build_id):
    with State(out / STATE_FILE) as state:
        stamp = next(b["started_at"] for b in state.builds() if b["build_id"] == build_id)
    return datetime.fromisoformat(stamp).strftime("%Y-%m-%d %H:%M:%S UTC")


def test_a_normal_build_is_described_in_words(first):
    page = render_html(build_report(first))
    assert _verdict(page) == ("13 candidates: 13 built (8 verified, 1 rejected by the controls, 2 skipped, "
                              "2 errors), 0 unchanged since the last build. 1 source could not be planned "
                              "(listed below).")
    facts = _facts(page)
    assert facts["Build"] == FIRST and facts["Wall time"] == "12 min 34 s" and facts["Candidates"] == "all candidates"
    assert facts["Started"] == _started(first, FIRST)
    assert '{"' not in page and "&quot;candidates&quot;" not in page
    assert "The dataset now holds 8 verified tasks from 13 candidates" in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt; not found" in page and "<script" not in page
    assert not re.search(r"\b(src|href)=|url\(", page)  # static: nothing is fetched


def test_a_partial_rebuild_counts_what_ran_and_what_was_unchanged(first):
    _second_build(first, [CANDIDATES[0], CANDIDATES[5]], wall=65.0)
    page = render_html(build_report(first))
    assert _verdict(page) == "13 candidates: 2 built (1 verified, 1 skipped), 11 unchanged since the last build."
    assert _facts(page)["Wall time"] == "1 min 05 s"


def test_a_no_op_build_says_nothing_was_rebuilt(tmp_path):
    out = tmp_path / "dataset"
    _first_build(out)
    with State(out / STATE_FILE) as state:  # the failed source is planned this time
        state.start_build(SECOND, None)
        for repo, pipeline in sorted({(c[0], c[1]) for c in CANDIDATES}):
            state.record_source(SECOND, repo, pipeline, "ok", None, 1)
        state.finish_build(SECOND, 0.4, {"unchanged": 13, "candidates": 13})
    report = write_report(out)
    page = (out / "report.html").read_text()
    assert _verdict(page) == "Nothing new: 13 candidates unchanged since the last build; nothing was rebuilt."
    facts = _facts(page)
    assert facts["Build"] == SECOND and facts["Wall time"] == "0.4 s"
    assert facts["Started"] == _started(out, SECOND)
    assert '{"' not in page and "Sources that failed" not in page
    assert report["previous_build"] == FIRST and report["diff"] == {"added": [], "removed": [], "changed": []}
    assert (out / "reports" / f"{SECOND}.html").read_text() == page


def test_the_json_report_keeps_its_keys(first):
    write_report(first)
    data = json.loads((first / "reports" / f"{FIRST}.json").read_text())
    assert sorted(data) == ["build", "cost_usd", "diff", "groups", "previous_build", "sources", "stages", "tasks",
                            "totals"]
    total = sum(c[5] for c in CANDIDATES)  # where the time went: each candidate's stages, summed
    assert data["stages"] == {"test runs": round(total / 2, 3), "controls": round(total / 4, 3),
                              "other": round(total / 4, 3)}
    page = (first / "report.html").read_text()
    assert "Where the time went" in page and f"{total / 2:,.1f} s" in page
    assert data["build"]["counts"] == {"candidates": 13, "error": 2, "rejected": 1, "skipped": 2, "unchanged": 0,
                                       "verified": 8}
    assert sorted(data["groups"][0]) == ["candidates", "env_failures", "env_ok", "env_tried", "errors",
                                         "instructions", "pipeline", "rejected", "repo", "skipped", "test_seconds",
                                         "verified", "wall_seconds", "yield"]
    assert [g["yield"] for g in data["groups"]] == [0.333, 0.833, 1.0, 0.0]


def _svgs(page):
    return [ET.fromstring(m) for m in re.findall(r"<svg\b.*?</svg>", page, re.DOTALL)]


def _all(element, tag):
    """The descendants of ``element`` named ``tag``, with or without the SVG namespace."""
    return [e for e in element.iter() if e.tag in (tag, SVG + tag)]


def _extent(text):
    """The horizontal extent (left, right) of an SVG <text>, with the conservative width estimate."""
    x, size = float(text.get("x")), float(text.get("font-size"))
    width = len(text.text or "") * CHAR_EM * size
    anchor = text.get("text-anchor", "start")
    left = x - width if anchor == "end" else x - width / 2 if anchor == "middle" else x
    return left, left + width


def _assert_texts_inside(svg):
    width, height = float(svg.get("width")), float(svg.get("height"))
    if svg.get("viewBox"):
        assert [float(v) for v in svg.get("viewBox").split()] == [0, 0, width, height]
    texts = _all(svg, "text")
    assert texts
    for text in texts:
        left, right = _extent(text)
        assert left >= 0 and right <= width, (text.text, left, right, width)
        assert 0 < float(text.get("y")) <= height


def test_every_chart_text_lies_inside_its_drawing_and_off_the_bars(first):
    page = render_html(build_report(first))
    svgs = _svgs(page)
    assert len(svgs) == 2
    for svg in svgs:
        _assert_texts_inside(svg)
    labels = []
    for svg in svgs:
        width = float(svg.get("width"))
        rows = _all(svg, "g")
        assert len(rows) == len(_all(svg, "rect"))
        for row in rows:
            name, value = _all(row, "text")
            bar = _all(row, "rect")[0]
            bar_left, bar_right = float(bar.get("x")), float(bar.get("x")) + float(bar.get("width"))
            assert _extent(name)[1] <= bar_left, name.text  # names end before the bars start
            assert _extent(value)[0] >= bar_right  # value labels start after their bar
            assert bar_right <= width
            labels.append((_all(row, "title")[0].text, name.text, value.text))
    yields = {title: value for title, _, value in labels[:4]}
    assert yields == {"local/alpha (pr_runtime): 83 %": "83 %", "local/beta (pr_runtime): 100 %": "100 %",
                      "local/zero (commit_runtime): 0 %": "0 %",
                      f"{LONG_REPO} (equivalence_tests): 33 %": "33 %"}
    long_rows = [(title, name) for title, name, _ in labels if LONG_TASK in title or LONG_REPO in title]
    assert len(long_rows) == 2 and all(name.count("\u2026") == 1 and name not in title for title, name in long_rows)
    times = [value for _, _, value in labels[4:]]
    assert times[0] == "123,456.7 s" and times[-1] == "0.0 s" and len(times) == 8  # slowest first


def test_a_full_bar_of_100_percent_alone_still_fits(tmp_path):
    out = tmp_path / "dataset"
    out.mkdir()
    with State(out / STATE_FILE) as state:
        state.start_build(FIRST, "3/16")
        state.record(_row("o/r", "pr_runtime", "pr#1", "verified", None, 99999999.9, FIRST))
        state.finish_build(FIRST, 1.0, {"verified": 1, "unchanged": 0, "candidates": 1})
    page = render_html(build_report(out))
    assert _verdict(page) == "1 candidate: 1 built (1 verified), 0 unchanged since the last build."
    assert _facts(page)["Candidates"] == "shard 3/16 of the candidates"
    for svg in _svgs(page):
        _assert_texts_inside(svg)
    assert "100 %" in page and "99,999,999.9 s" in page


def test_a_build_that_did_not_finish_says_so(first):
    with State(first / STATE_FILE) as state:  # killed after one candidate
        state.start_build(SECOND, None)
        state.record(_row(*CANDIDATES[0], SECOND))
    page = render_html(build_report(first))
    assert _verdict(page) == ("This build has not finished (it is still running, or it was stopped); the figures "
                              "below are the state so far.")
    assert _facts(page)["Finished"] == "-" and _facts(page)["Wall time"] == "-"
    for svg in _svgs(page):
        _assert_texts_inside(svg)


def test_environment_success_and_top_failures_per_repository(tmp_path):
    out = tmp_path / "dataset"
    out.mkdir()
    failures = [("env_build_failed", "building local/r2e-env/x:abc failed: No solution found when resolving "
                 "dependencies (exit 1) (rungs tried: 3.12 (install failed), 3.11 (install failed))")] * 2 + [
        ("python_unavailable", "requires-python <3.6 allows none of 3.8, 3.9, 3.10, 3.11, 3.12, 3.13")]
    with State(out / STATE_FILE) as state:
        state.start_build(FIRST, None)
        rows = [dict(_row("local/old", "pr_runtime", f"pr#{n}", "verified", None, 10.0, FIRST), environment="ok",
                     instruction=json.dumps({"words": 20 + 10 * n, "states": ["input", "behaviour"][:n + 1],
                                             "observed": n})) for n in range(3)]
        rows += [dict(_row("local/old", "pr_runtime", f"pr#{10 + n}", "skipped", reason, 5.0, FIRST),
                      detail=detail, environment="failed") for n, (reason, detail) in enumerate(failures)]
        rows.append(_row("local/old", "pr_runtime", "pr#20", "skipped", "docs_ci_only", 0.1, FIRST))  # no env
        for row in rows:
            state.record(row)
        state.finish_build(FIRST, 60.0, {"candidates": 7})
    report = write_report(out)
    (group,) = report["groups"]
    assert (group["env_ok"], group["env_tried"]) == (3, 6)
    assert group["instructions"] == {"tasks": 3, "median_words": 30, "input": 3, "behaviour": 2, "expectation": 0,
                                     "observed": 2}
    assert group["env_failures"] == {
        "env_build_failed: No solution found when resolving dependencies (exit 1)": 2,
        "python_unavailable: requires-python <3.6 allows none of 3.8, 3.9, 3.10, 3.11, 3.12, 3.13": 1}
    page = (out / "report.html").read_text()
    assert ">3 of 6</td>" in page and "<td>30 words; 3 / 2 / 0 of 3</td>" in page
    assert "env_build_failed: No solution found when resolving dependencies (exit 1) (2); python_unavailable" in page
