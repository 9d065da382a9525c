"""equivalence_tests machinery: discover functions (``discover``), make task-module variants (``task_module``) and
mutants (``mutants``), generate inputs and gate the task in a container (``casegen`` run by ``generation``), and
grade (``harness``, shipped into bundles)."""
