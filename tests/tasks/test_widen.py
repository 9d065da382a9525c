"""repo2env/tasks/widen.py: which test files exercise the changed modules."""

from repo2env.tasks.widen import _mentions, changed_modules


def test_changed_modules_drop_the_source_root_and_init():
    assert changed_modules(["src/units/sizes.py", "units/__init__.py", "README.md", "lib/units/core.py"]) == [
        "units.sizes", "units", "units.core"]


def test_a_file_exercises_a_module_it_imports():
    assert _mentions("from units.sizes import to_bytes\n\nto_bytes('1 kB')\n", "units.sizes") >= 1
    assert _mentions("from units import sizes\n\nsizes.to_bytes('1')\n", "units.sizes") >= 2
    assert _mentions("import units.sizes as s\n", "units.sizes") >= 1
    assert _mentions("from unitsx import sizes\n", "units.sizes") == 0  # another package
    assert _mentions("# sizes are discussed here\n", "units.sizes") == 0  # mentioned, never imported
