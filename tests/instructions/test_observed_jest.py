"""Jest's failure reports in the observed behaviour (instructions/observed/test_output.py): an older Jest's values on
the line under ``Expected value to be:`` / ``Received:``, the error ``not.toThrow()`` names (never Jest's own
matcher header), and a chained call told by the call that is checked (dayjs)."""

from repo2env.instructions.observed.evidence import Evidence
from repo2env.instructions.observed.test_output import observed_from_output

TEST = "test/plugin/duration.test.js"
SOURCE = """it('formats', () => {
  expect(dayjs.duration(1, 'y').format('Y')).toBe('1')
})
it('does not throw', () => {
  expect(() => dayjs.tz('invalid', 'Europe/Skopje')).not.toThrow()
})
"""


def _told(case: str, text: str) -> list[str]:
    node = f"{TEST}::{case}"
    return observed_from_output(Evidence(failures={node: text}, import_errors={}, fail_to_pass=(node,),
                                         test_sources={TEST: SOURCE}))


def test_values_on_the_line_under_and_a_chain_told_by_its_last_call():
    said = _told("formats", 'Error: expect(received).toBe(expected) // Object.is equality\n\nExpected value to be:'
                 '\n  "1"\nReceived:\n  "+0000"\n'
                 "    at Object.<anonymous> (/workspace/test/plugin/duration.test.js:2:50)")
    assert said == ["Calling `format('Y')` returns `\"+0000\"`, which is not the correct result."]


def test_what_was_thrown_not_jests_header():
    said = _told("does not throw", 'Error: expect(received).not.toThrow()\n\nError name:    "RangeError"\n'
                 'Error message: "Invalid time value"\n'
                 "    at Object.<anonymous> (/workspace/test/plugin/duration.test.js:5:58)")
    assert said == ["Calling `dayjs.tz` with `'invalid'` and `'Europe/Skopje'` throws `RangeError: Invalid time "
                    "value`; it should not throw."]
