"""Whether an instruction is one an agent can act on: does it state an input, what happens, and what should
happen (SWE-bench Verified's annotators' question "is the issue well specified?", asked of three parts).

``classify(text)`` is deterministic (patterns, no model):

* ``input``: a code span that calls with arguments or holds a value (`` `area(2, 3)` ``, `` `"1 kB"` ``,
  `` `timeout=2` ``; not `` `f(…)` ``, whose arguments are not told, nor a span that follows "returns", "gives",
  "raises", "be", "matching", ...: that is a result) or is an import (`` `from pkg import x` ``),
  or words that introduce one ("when I call", "given", "passing", "for the input", "with a ... of", "is passed
  to", "without specifying", "when the variable holds only ...");
* ``behaviour``: what happens: an exception name, or raises/returns/gives/fails/crashes/hangs/ignores/compare
  unequal/...;
* ``expectation``: what should happen: should/expected/instead/must/rather than/ought to/supposed to/...

``stated(text)`` lists the parts present, in that order; ``words(text)`` counts words (the median of a run is
reported). The run summary, the build report and ``[metadata.repo2env.leak_audit]`` carry them;
``--min-actionability N`` skips an instruction that states fewer than N of the three.
"""

import re

PARTS = ("input", "behaviour", "expectation")
_CODE = re.compile(r"`([^`\n]+)`")
_INPUT_WORDS = re.compile(r"\b(when (?:i|you|we|one|a user) (?:call|pass|run|use|give|load|parse|read|open|send)|"
                          r"passing|given|for (?:the |an? )?input|with (?:an?|the) \w+ (?:of|set to)|"
                          r"e\.g\.|for example|such as|(?:is|are) passed (?:to|as|in)|"
                          r"without (?:specifying|passing|giving|an explicit)|"
                          r"when (?:an?|the|its|their) [\w-]+(?: [\w-]+){0,3} (?:is|are|holds?|contains?|has|have|"
                          r"equals?|lacks?) (?=\w))\b", re.IGNORECASE)
_BEHAVIOUR = re.compile(r"\b(raise[sd]?|raising|return(?:s|ed|ing)?|gives?|gave|produces?|produced|fails?|failed|"
                        r"failing|crash(?:es|ed)?|hangs?|hung|ignores?|ignored|loses?|lost|prints?|printed|"
                        r"outputs?|breaks?|broken|errors?|exception|traceback|incorrect(?:ly)?|wrong(?:ly)?|"
                        r"does not|doesn't|do not|don't|cannot|can't|no longer|is missing|never|always|"
                        r"(?:has|have|provides?) no|lacks?|"
                        r"instead of|compares? (?:un)?equal|differs?)\b|\b\w+(?:Error|Exception|Warning)\b",
                        re.IGNORECASE)
_EXPECTATION = re.compile(r"\b(should(?:n't| not)?|expected|expect(?:s|ing)?|instead|must|ought to|supposed to|"
                          r"rather than|would like|needs? to|is meant to|want(?:s|ed)? (?:it|them|to)|"
                          r"correct(?:ly)?|it would be (?:nice|good|better)|add(?:s|ing)? (?:a |an |support))\b",
                          re.IGNORECASE)
_WORD = re.compile(r"[^\W_]+(?:['_-][^\W_]+)*")


# a code span right after these words is what happened or what should (an output), not an input
_OUTPUT_BEFORE = re.compile(r"\b(?:returns?|returned|gives?|gave|raises?|raised|emits?|be|is|was|yields?|prints?|"
                            r"produces?|matching|message|outputs?|shows?|reads?)\s*$|\b(?:gives|returns) `[^`]*` and\s*$",
                            re.IGNORECASE)


def _states_input(text: str) -> bool:
    for m in _CODE.finditer(text):
        span = m.group(1)
        if _OUTPUT_BEFORE.search(text[max(0, m.start() - 40):m.start()]):
            continue  # `'1000 V'` in "returns `'1000 V'`" is the result, not what was given
        if re.search(r"\w\((?!\*{0,2}(?:…|\.\.\.)(?:, \*{0,2}(?:…|\.\.\.))*\))|=|\d|['\"]|\[|\{", span):
            return True  # a call with its arguments (not elided), a keyword, a number, a string, a container
        if re.match(r"(?:from\s+[\w.]+\s+)?import\s+\w", span):
            return True  # the import a user runs
    return bool(_INPUT_WORDS.search(text))


def stated(text: str) -> list[str]:
    """The parts of ``PARTS`` the instruction ``text`` states, in ``PARTS`` order."""
    found = {"input": _states_input(text), "behaviour": bool(_BEHAVIOUR.search(text)),
             "expectation": bool(_EXPECTATION.search(text))}
    return [part for part in PARTS if found[part]]


def words(text: str) -> int:
    """Words in ``text`` (Markdown punctuation and code quotes do not count; a code span's words do)."""
    return len(_WORD.findall(text))
