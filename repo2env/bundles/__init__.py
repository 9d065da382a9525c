"""A task bundle on disk: staging and atomic publish (``stage``), ``task.toml`` (``task_toml``), content and
bundle hashes (``hashing``), the schema 1.3 rewrite (``layout13``), and finding bundles under a folder (``find``)."""
