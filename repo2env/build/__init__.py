"""Nightly dataset builds: ``dataset.toml`` (``config``), the planner and runner (``runner``), SQLite state
(``state``), executors (threads or Ray), the HTML/JSON report (``report``)."""
