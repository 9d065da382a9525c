"""Where tests run: per-repository overrides (``overrides``), images (``images``, ``task_image``), containers
(``containers``), one test run in a fresh container (``testrun``) and FAIL_TO_PASS / PASS_TO_PASS selection
(``selection``). Language-neutral: what to install and how to run a language's tests comes from ``languages``."""
