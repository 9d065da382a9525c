"""A change between a base commit and a head commit: the test/gold split (``patches``) and the filters that skip
candidates before any Docker work (``filters`` for every change, ``commit_filters`` for commit messages)."""
