"""A feature whose tests are named after it (bitflags keeps one test module per method: `src/tests/all_named.rs`,
test id `src/lib.rs::tests::all_named::cases`): the observed behaviour may still name the function the fix
defines, which is the task's interface, while a name the fix does not define stays unsaid."""

from repo2env.instructions.observed.evidence import Evidence, interface_names
from repo2env.instructions.observed.test_output import observed_from_output

MESSAGE = ("error[E0599]: no function or associated item named `all_named` found for struct `tests::TestFlags` in "
           "the current scope\n  --> src/tests/all_named.rs:7:42\n   |\n7 |     case(1 | 1 << 1 | 1 << 2, "
           "TestFlags::all_named);\n   |                                          ^^^^^^^^^ function or associated "
           "item not found in `TestFlags`\n")
F2P = ("src/lib.rs::tests::all::cases", "src/lib.rs::tests::all_named::cases")
GOLD = """--- a/src/public.rs
+++ b/src/public.rs
@@ -10,6 +10,12 @@
             }
 
+            /// Get a flags value with all named bits set.
+            #[inline]
+            pub fn all_named() -> Self {
+                Self(<$InternalBitFlags>::all_named())
+            }
+
-            pub fn all() -> Self {
+            pub fn all() -> Self {
"""


def _said(interface):
    return observed_from_output(Evidence(failures={}, import_errors={"src/lib.rs": MESSAGE}, fail_to_pass=F2P,
                                         test_sources={}, interface=interface))


def test_the_fix_defines_only_its_new_names():
    assert interface_names(GOLD) == {"all_named"}  # `all` is on a removed line too: edited, not new


def test_a_function_the_fix_defines_is_named_even_when_a_test_module_shares_it():
    assert _said(interface_names(GOLD)) == [
        "The type `TestFlags` has no function or method `all_named`; it should provide it."]


def test_without_the_fix_defining_it_the_test_module_name_stays_unsaid():
    assert _said(frozenset()) == []


def test_a_title_naming_the_new_function_and_a_plain_word_test_module_survives_stripping():
    from repo2env.instructions.leak_strip import build_instruction

    title = "Add an all_named ctor for filtering out catch-all flags"
    kept = build_instruction(title, "", test_ids=F2P, allowed_names=sorted(interface_names(GOLD)))
    assert kept == f"# {title}\n"  # `all` (a module) is a plain word; `all_named` is what the fix defines
    assert "all_named" not in build_instruction(title, "", test_ids=F2P)  # not defined by the fix: a test's name


def test_an_emptied_title_takes_the_first_observed_statement():
    from repo2env.instructions.leak_strip import fill_empty_title

    text = "#\n\n## Observed behaviour\n\n- Parsing `1 KB` fails; it should give 1024.\n"
    assert fill_empty_title(text).split("\n")[0] == "# Parsing `1 KB` fails; it should give 1024"
