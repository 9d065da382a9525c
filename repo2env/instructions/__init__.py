"""The instruction an agent reads: made from the change's text (``make``), leaks stripped (``leak_strip``), audited
(``leak_audit``), optionally rewritten by a model (``synthesis``)."""
