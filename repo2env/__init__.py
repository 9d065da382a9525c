"""repo2rlenv core: turn a repository's history into verifiable Harbor task bundles.

The pipelines (``pipelines/`` and third-party plugins, entry-point group ``repo2env.pipelines``) are small lists
of stage calls; the stages live in this package, one module per concern.
"""

__version__ = "0.1.0"
SPEC_VERSION = "0.2.0"  # the bundle specification in specs/ that the emitted bundles follow
