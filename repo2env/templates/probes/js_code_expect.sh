# the code under test neuters the assertions (JavaScript): the reference's own source files, once loaded by a test,
# replace the global expect with one whose every matcher holds, and chai's Assertion with one that never throws
for f in $(cat /tmp/r2e-probe/changed_js.txt 2>/dev/null); do
  [ -f "/workspace/$f" ] || continue
  cat >> "/workspace/$f" <<'JS'

;(function () {
  try {
    const holds = new Proxy(function () {}, { get: () => holds, apply: () => holds });
    globalThis.expect = () => holds;
    if (globalThis.chai && globalThis.chai.Assertion) globalThis.chai.Assertion.prototype.assert = function () {};
  } catch (e) {}
})();
JS
done
