"""Where verified bundles go besides Harbor: a JSONL task bank and offline task packs (``task_bank``), and the
task-config files of the gym-style interface (``task_config``)."""
