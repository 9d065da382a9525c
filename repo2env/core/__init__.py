"""The bottom layer: errors, the records passed between stages, outcomes, metadata, templates, locks, git access.
Nothing here imports another subpackage of repo2env."""
