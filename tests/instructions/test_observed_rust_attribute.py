"""rustc's "cannot find attribute" (bitflags: a fix that adds a `#[bitflags(...)]` attribute its tests use) in the
observed behaviour: told by the attribute as the tests write it."""

from repo2env.instructions.observed.evidence import Evidence
from repo2env.instructions.observed.test_output import observed_from_output


def test_a_missing_attribute_is_told_as_written():
    message = ('error: cannot find attribute `bitflags` in this scope\n   --> src/tests.rs:157:11\n    |\n'
               '157 |         #[bitflags(flag_name = "custom | e")]\n    |           ^^^^^^^^\n')
    said = observed_from_output(Evidence(failures={}, import_errors={"src/lib.rs": message},
                                         fail_to_pass=("src/lib.rs::tests::renamed_flags",), test_sources={}))
    assert said == ['The attribute `#[bitflags(flag_name = "custom | e")]` is not recognised by the crate; it should be '
                    'supported.']
