"""One ``generate`` run: plan, build each candidate, run the controls and probes, publish, ledger (``generate``,
``ledger``)."""
