"""Built-in pipelines, each registered in the ``repo2env.pipelines`` entry-point group (see pyproject.toml)."""
