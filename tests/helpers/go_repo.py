"""A Go module with pull requests in its history, built by the tests (``build_go_repo``), and what pr_runtime
must make of it (``EXPECTED_TASKS``, ``EXPECTED_SKIPS``).

====  =======================================================  ==========================================
PR    shape and change                                          expected outcome (pr_runtime)
====  =======================================================  ==========================================
#1    merge: Clamp ignored the upper bound; new failing test    task: F2P TestClampAbove
#2    merge: README only                                        skipped: docs_ci_only
#3    squash: refactor Add; its new test passes before          skipped: no_fail_to_pass
#4    squash: ParseSize units; table test, names with spaces    task: F2P the table test and both cases
====  =======================================================  ==========================================

The tests use ``github.com/google/go-cmp`` (``go.sum`` written by ``go mod tidy`` from the module proxy), so the
image's module download is exercised too.
"""

import os
import subprocess
from pathlib import Path

from repo2env.sources.demo_repo import _Builder

EXPECTED_TASKS = {
    1: {"fail_to_pass": ["calc/calc_test.go::TestClampAbove"],
        "pass_to_pass": ["calc/calc_test.go::TestAdd", "calc/calc_test.go::TestClampInside"]},
    4: {"fail_to_pass": ["sizes/sizes_test.go::TestParseSizeUnits",
                         "sizes/sizes_test.go::TestParseSizeUnits/one_kilo_byte",
                         "sizes/sizes_test.go::TestParseSizeUnits/two_mega_bytes"],
        "pass_to_pass": ["sizes/sizes_test.go::TestParsePlain"]},
}
EXPECTED_SKIPS = {2: "docs_ci_only", 3: "no_fail_to_pass"}

GO_MOD = "module example.com/gocalc\n\ngo 1.21\n\nrequire github.com/google/go-cmp v0.6.0\n"

CALC_V1 = """package calc

// Add returns a + b.
func Add(a, b int) int {
\treturn a + b
}

// Clamp limits x to the range [lo, hi].
func Clamp(x, lo, hi int) int {
\tif x < lo {
\t\treturn lo
\t}
\treturn x
}
"""

CALC_V2 = CALC_V1.replace("\treturn x\n}\n", "\tif x > hi {\n\t\treturn hi\n\t}\n\treturn x\n}\n")
CALC_V3 = CALC_V2.replace("\treturn a + b\n", "\tsum := a + b\n\treturn sum\n")

CALC_TEST_V1 = """package calc

import (
\t"testing"

\t"github.com/google/go-cmp/cmp"
)

func TestAdd(t *testing.T) {
\tif diff := cmp.Diff(5, Add(2, 3)); diff != "" {
\t\tt.Errorf("Add(2, 3) mismatch (-want +got):\\n%s", diff)
\t}
}

func TestClampInside(t *testing.T) {
\tif got := Clamp(5, 0, 10); got != 5 {
\t\tt.Errorf("Clamp(5, 0, 10) = %d, want 5", got)
\t}
}
"""

CALC_TEST_V2 = CALC_TEST_V1 + """
func TestClampAbove(t *testing.T) {
\tif got := Clamp(15, 0, 10); got != 10 {
\t\tt.Errorf("Clamp(15, 0, 10) = %d, want 10", got)
\t}
}
"""

CALC_TEST_V3 = CALC_TEST_V2 + """
func TestAddNegative(t *testing.T) {
\tif got := Add(-2, -3); got != -5 {
\t\tt.Errorf("Add(-2, -3) = %d, want -5", got)
\t}
}
"""

SIZES_V1 = """package sizes

import (
\t"fmt"
\t"strconv"
)

// ParseSize reads a size in bytes.
func ParseSize(text string) (int, error) {
\tn, err := strconv.Atoi(text)
\tif err != nil {
\t\treturn 0, fmt.Errorf("invalid size %q", text)
\t}
\treturn n, nil
}
"""

SIZES_V2 = """package sizes

import (
\t"fmt"
\t"strconv"
\t"strings"
)

var units = map[string]int{"KB": 1024, "MB": 1024 * 1024}

// ParseSize reads a size in bytes, with an optional KB or MB suffix.
func ParseSize(text string) (int, error) {
\ttext = strings.TrimSpace(text)
\tfactor := 1
\tfor suffix, f := range units {
\t\tif strings.HasSuffix(text, suffix) {
\t\t\ttext, factor = strings.TrimSpace(strings.TrimSuffix(text, suffix)), f
\t\t}
\t}
\tn, err := strconv.Atoi(text)
\tif err != nil {
\t\treturn 0, fmt.Errorf("invalid size %q", text)
\t}
\treturn n * factor, nil
}
"""

SIZES_TEST_V1 = """package sizes

import "testing"

func TestParsePlain(t *testing.T) {
\tif got, err := ParseSize("512"); err != nil || got != 512 {
\t\tt.Fatalf("ParseSize(\\"512\\") = %d, %v; want 512", got, err)
\t}
}
"""

SIZES_TEST_V2 = SIZES_TEST_V1 + """
func TestParseSizeUnits(t *testing.T) {
\tcases := []struct {
\t\tname string
\t\ttext string
\t\twant int
\t}{
\t\t{"one kilo byte", "1 KB", 1024},
\t\t{"two mega bytes", "2MB", 2 * 1024 * 1024},
\t}
\tfor _, c := range cases {
\t\tt.Run(c.name, func(t *testing.T) {
\t\t\tgot, err := ParseSize(c.text)
\t\t\tif err != nil || got != c.want {
\t\t\t\tt.Errorf("ParseSize(%q) = %d, %v; want %d", c.text, got, err, c.want)
\t\t\t}
\t\t})
\t}
}
"""


def _go_sum(folder: Path) -> str:
    """``go.sum`` of ``GO_MOD`` as ``go mod tidy`` writes it (from the module proxy; the checksum database is not
    reachable here, go.sum is what pins the bytes)."""
    (folder / "go.mod").write_text(GO_MOD)
    (folder / "calc").mkdir(exist_ok=True)
    (folder / "calc" / "calc.go").write_text(CALC_V1)
    (folder / "calc" / "calc_test.go").write_text(CALC_TEST_V1)
    env = dict(os.environ, GOFLAGS="-mod=mod", GOSUMDB="off", GOTOOLCHAIN="local")
    subprocess.run(["go", "mod", "tidy"], cwd=folder, env=env, check=True, capture_output=True, timeout=300)
    return (folder / "go.sum").read_text()


def build_go_repo(path: Path, scratch: Path) -> Path:
    """Create the Go fixture repository at ``path`` (must not exist); ``scratch`` is a folder for ``go mod tidy``.
    Raises ``subprocess.CalledProcessError`` when the module proxy cannot be reached."""
    path = Path(path)
    Path(scratch).mkdir(parents=True, exist_ok=True)
    go_sum = _go_sum(Path(scratch))
    path.mkdir(parents=True)
    b = _Builder(path)
    b.git("init", "-q", "--initial-branch=main")
    b.commit("Initial gocalc module", {
        "go.mod": GO_MOD, "go.sum": go_sum, "README.md": "# gocalc\n\nSmall arithmetic helpers.\n",
        "calc/calc.go": CALC_V1, "calc/calc_test.go": CALC_TEST_V1,
        "sizes/sizes.go": SIZES_V1, "sizes/sizes_test.go": SIZES_TEST_V1})
    b.merge_pr(1, "alice/clamp", "Clamp ignores the upper bound",
               "Clamp(15, 0, 10) returns 15. A value above the range should come back as the upper bound.",
               [("Clamp to the upper bound", {"calc/calc.go": CALC_V2, "calc/calc_test.go": CALC_TEST_V2})])
    b.merge_pr(2, "bob/docs", "Document Clamp", "Explain what Clamp returns.",
               [("Docs", {"README.md": "# gocalc\n\n`Clamp(x, lo, hi)` limits x to [lo, hi].\n"})])
    b.commit("Refactor Add and cover negative numbers (#3)\n\nAdd now names its result; a new test covers negative "
             "operands, which already worked.", {"calc/calc.go": CALC_V3, "calc/calc_test.go": CALC_TEST_V3})
    b.commit("Parse sizes with unit suffixes (#4)\n\nParseSize(\"1 KB\") returned an error because only plain byte "
             "counts were accepted. Sizes with a KB or MB suffix, with or without a space, should be converted to "
             "bytes (1 KB = 1024 bytes).", {"sizes/sizes.go": SIZES_V2, "sizes/sizes_test.go": SIZES_TEST_V2})
    return path
