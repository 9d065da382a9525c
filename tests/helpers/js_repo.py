"""A TypeScript package tested with Vitest, with pull requests in its history, built by the tests
(``build_js_repo``; ``build_node_test_repo``: the same history in JavaScript tested with ``node --test``), and
what pr_runtime must make of it (``EXPECTED_TASKS``, ``EXPECTED_SKIPS``).

====  =======================================================  ==========================================
PR    shape and change                                          expected outcome (pr_runtime)
====  =======================================================  ==========================================
#1    merge: clamp ignored the upper bound; new failing test    task: F2P "clamp > clamps above the range"
#2    merge: README only                                        skipped: docs_ci_only
#3    squash: refactor add; its new test passes before          skipped: no_fail_to_pass
#4    squash: parseSize units; it.each, names with spaces       task: F2P both cases
====  =======================================================  ==========================================

No lockfile: the image's install is ``npm install --before=<base commit date>`` from the npm registry, Vitest
pinned to an exact version in ``package.json``.
"""

import json
import re
from pathlib import Path

from repo2env.sources.demo_repo import _Builder

EXPECTED_TASKS = {
    1: {"fail_to_pass": ["src/clamp.test.ts::clamp > clamps above the range"],
        "pass_to_pass": ["src/clamp.test.ts::add > adds two numbers",
                         "src/clamp.test.ts::clamp > keeps a value inside"]},
    4: {"fail_to_pass": ["src/sizes.test.ts::parseSize > parses 1 KB as 1024 bytes",
                         "src/sizes.test.ts::parseSize > parses 2MB as 2097152 bytes"],
        "pass_to_pass": ["src/sizes.test.ts::parseSize > reads plain bytes"]},
}
EXPECTED_SKIPS = {2: "docs_ci_only", 3: "no_fail_to_pass"}

PACKAGE = json.dumps({"name": "jscalc", "version": "0.1.0", "private": True, "type": "module",
                      "scripts": {"test": "vitest run"}, "devDependencies": {"vitest": "2.1.9"}}, indent=2) + "\n"

CLAMP_V1 = """export function add(a: number, b: number): number {
  return a + b;
}

export function clamp(x: number, lo: number, hi: number): number {
  if (x < lo) return lo;
  return x;
}
"""
CLAMP_V2 = CLAMP_V1.replace("  if (x < lo) return lo;\n", "  if (x < lo) return lo;\n  if (x > hi) return hi;\n")
CLAMP_V3 = CLAMP_V2.replace("  return a + b;\n", "  const sum = a + b;\n  return sum;\n")

CLAMP_TEST_V1 = """import { describe, expect, it } from "vitest";
import { add, clamp } from "./clamp";

describe("add", () => {
  it("adds two numbers", () => {
    expect(add(2, 3)).toBe(5);
  });
});

describe("clamp", () => {
  it("keeps a value inside", () => {
    expect(clamp(5, 0, 10)).toBe(5);
  });
});
"""
CLAMP_TEST_V2 = CLAMP_TEST_V1.replace("""    expect(clamp(5, 0, 10)).toBe(5);
  });
""", """    expect(clamp(5, 0, 10)).toBe(5);
  });

  it("clamps above the range", () => {
    expect(clamp(15, 0, 10)).toBe(10);
  });
""")
CLAMP_TEST_V3 = CLAMP_TEST_V2.replace("""    expect(add(2, 3)).toBe(5);
  });
""", """    expect(add(2, 3)).toBe(5);
  });

  it("adds negative numbers", () => {
    expect(add(-2, -3)).toBe(-5);
  });
""")

SIZES_V1 = """export function parseSize(text: string): number {
  const n = Number(text);
  if (!Number.isInteger(n)) throw new Error(`invalid size "${text}"`);
  return n;
}
"""
SIZES_V2 = """const UNITS: Record<string, number> = { KB: 1024, MB: 1024 * 1024 };

export function parseSize(text: string): number {
  let body = text.trim();
  let factor = 1;
  for (const [suffix, f] of Object.entries(UNITS)) {
    if (body.endsWith(suffix)) {
      body = body.slice(0, -suffix.length).trim();
      factor = f;
    }
  }
  const n = Number(body);
  if (!Number.isInteger(n)) throw new Error(`invalid size "${text}"`);
  return n * factor;
}
"""
SIZES_TEST_V1 = """import { describe, expect, it } from "vitest";
import { parseSize } from "./sizes";

describe("parseSize", () => {
  it("reads plain bytes", () => {
    expect(parseSize("512")).toBe(512);
  });
});
"""
SIZES_TEST_V2 = SIZES_TEST_V1.replace("""    expect(parseSize("512")).toBe(512);
  });
""", """    expect(parseSize("512")).toBe(512);
  });

  it.each([
    ["1 KB", 1024],
    ["2MB", 2097152],
  ])("parses %s as %i bytes", (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });
""")


def build_js_repo(path: Path) -> Path:
    """Create the JavaScript fixture repository at ``path`` (must not exist). Returns ``path``."""
    path = Path(path)
    path.mkdir(parents=True)
    b = _Builder(path)
    b.git("init", "-q", "--initial-branch=main")
    b.commit("Initial jscalc package", {
        "package.json": PACKAGE, ".gitignore": "node_modules/\n", "README.md": "# jscalc\n\nSmall helpers.\n",
        "src/clamp.ts": CLAMP_V1, "src/clamp.test.ts": CLAMP_TEST_V1,
        "src/sizes.ts": SIZES_V1, "src/sizes.test.ts": SIZES_TEST_V1})
    b.merge_pr(1, "alice/clamp", "clamp ignores the upper bound",
               "clamp(15, 0, 10) returns 15. A value above the range should come back as the upper bound.",
               [("Clamp to the upper bound", {"src/clamp.ts": CLAMP_V2, "src/clamp.test.ts": CLAMP_TEST_V2})])
    b.merge_pr(2, "bob/docs", "Document clamp", "Explain what clamp returns.",
               [("Docs", {"README.md": "# jscalc\n\n`clamp(x, lo, hi)` limits x to [lo, hi].\n"})])
    b.commit("Refactor add and cover negative numbers (#3)\n\nadd now names its result; a new test covers negative "
             "operands, which already worked.", {"src/clamp.ts": CLAMP_V3, "src/clamp.test.ts": CLAMP_TEST_V3})
    b.commit("Parse sizes with unit suffixes (#4)\n\nparseSize(\"1 KB\") threw because only plain byte counts were "
             "accepted. Sizes with a KB or MB suffix, with or without a space, should be converted to bytes "
             "(1 KB = 1024 bytes).", {"src/sizes.ts": SIZES_V2, "src/sizes.test.ts": SIZES_TEST_V2})
    return path


# The same shapes for Node.js's own test runner: an ES-module package whose test script is `node --test` (no
# dependency at all), its tests in test/, suites by describe, cases named by a loop (names with spaces).
NODE_EXPECTED_TASKS = {
    1: {"fail_to_pass": ["test/clamp.test.js::clamp > clamps above the range"],
        "pass_to_pass": ["test/clamp.test.js::add > adds two numbers",
                         "test/clamp.test.js::clamp > keeps a value inside"]},
    4: {"fail_to_pass": ["test/sizes.test.js::parseSize > parses 1 KB as 1024 bytes",
                         "test/sizes.test.js::parseSize > parses 2MB as 2097152 bytes"],
        "pass_to_pass": ["test/sizes.test.js::parseSize > reads plain bytes"]},
}
NODE_PACKAGE = json.dumps({"name": "nodecalc", "version": "0.1.0", "private": True, "type": "module",
                           "scripts": {"test": "node --test --no-warnings"}}, indent=2) + "\n"
NODE_HEADER = 'import { describe, it } from "node:test";\nimport assert from "node:assert/strict";\n'


def _untyped(source: str) -> str:
    """The JavaScript of this module's TypeScript sources (their annotations removed)."""
    for typed, plain in ((": number", ""), (": string", ""), (": Record<string, number>", ""),
                         ('from "./clamp"', 'from "../src/clamp.js"'), ('from "./sizes"', 'from "../src/sizes.js"')):
        source = source.replace(typed, plain)
    return source


def _node_test(source: str) -> str:
    """A Vitest file of this module as a node:test one: node:assert instead of expect, a loop instead of it.each."""
    source = _untyped(source).replace('import { describe, expect, it } from "vitest";\n', NODE_HEADER)
    source = source.replace("""  it.each([
    ["1 KB", 1024],
    ["2MB", 2097152],
  ])("parses %s as %i bytes", (text, bytes) => {
    expect(parseSize(text)).toBe(bytes);
  });
""", """  for (const [text, bytes] of [["1 KB", 1024], ["2MB", 2097152]]) {
    it(`parses ${text} as ${bytes} bytes`, () => {
      assert.equal(parseSize(text), bytes);
    });
  }
""")
    return re.sub(r"expect\((.+)\)\.toBe\((.+)\);", r"assert.equal(\1, \2);", source)


def build_node_test_repo(path: Path) -> Path:
    """Create the node:test fixture repository at ``path`` (must not exist): ``build_js_repo``'s history in
    plain JavaScript. Returns ``path``."""
    path = Path(path)
    path.mkdir(parents=True)
    b = _Builder(path)
    b.git("init", "-q", "--initial-branch=main")
    b.commit("Initial nodecalc package", {
        "package.json": NODE_PACKAGE, ".gitignore": "node_modules/\n", "README.md": "# nodecalc\n\nSmall helpers.\n",
        "src/clamp.js": _untyped(CLAMP_V1), "test/clamp.test.js": _node_test(CLAMP_TEST_V1),
        "src/sizes.js": _untyped(SIZES_V1), "test/sizes.test.js": _node_test(SIZES_TEST_V1)})
    b.merge_pr(1, "alice/clamp", "clamp ignores the upper bound",
               "clamp(15, 0, 10) returns 15. A value above the range should come back as the upper bound.",
               [("Clamp to the upper bound", {"src/clamp.js": _untyped(CLAMP_V2),
                                              "test/clamp.test.js": _node_test(CLAMP_TEST_V2)})])
    b.merge_pr(2, "bob/docs", "Document clamp", "Explain what clamp returns.",
               [("Docs", {"README.md": "# nodecalc\n\n`clamp(x, lo, hi)` limits x to [lo, hi].\n"})])
    b.commit("Refactor add and cover negative numbers (#3)\n\nadd now names its result; a new test covers negative "
             "operands, which already worked.", {"src/clamp.js": _untyped(CLAMP_V3),
                                                 "test/clamp.test.js": _node_test(CLAMP_TEST_V3)})
    b.commit("Parse sizes with unit suffixes (#4)\n\nparseSize(\"1 KB\") threw because only plain byte counts were "
             "accepted. Sizes with a KB or MB suffix, with or without a space, should be converted to bytes "
             "(1 KB = 1024 bytes).", {"src/sizes.js": _untyped(SIZES_V2), "test/sizes.test.js": _node_test(SIZES_TEST_V2)})
    return path
