"""Where candidates come from: a local clone's history (``local``); GitHub through PyGithub comes later."""
