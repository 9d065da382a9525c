"""Resource limits every stage agrees on, written once: the memory cap of every container the generator starts
(the same ``memory_mb`` a bundle asks Harbor for), and the agent's time budget written into ``task.toml``."""

MEMORY_MB = 4096  # per container, and [environment].memory_mb of every bundle
AGENT_TIMEOUT_SEC = 1800.0  # [agent].timeout_sec of every bundle
