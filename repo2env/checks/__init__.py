"""Proof that a bundle grades right: the oracle and nop controls (``controls``, ``separate_verifier`` for a separate
verifier container), the adversarial probes (``probes``), ``validate`` and host-side pr_diff ``scoring``."""
