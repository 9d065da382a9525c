"""Kits the pipelines share: runtime tasks graded by the repository's tests (``runtime``), pull-request planning
(``pr_plan``), the common metadata and ``task.toml`` writer (``common``), and equivalence tasks (``eqv/``)."""
