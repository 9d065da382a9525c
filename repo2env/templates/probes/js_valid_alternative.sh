# a valid alternative (JavaScript): the reference solution, after the agent ran the test suite the way a developer
# does (npm test / npx of the runner: the runners' caches under node_modules left behind); an honest solution with
# the toolchain used as intended must still score 1.0
bash /solution/solve.sh
cd /workspace
timeout 600 npm test >/dev/null 2>&1
for runner in vitest jest mocha; do
  [ -d "node_modules/$runner" ] && timeout 600 npx --no-install "$runner" $( [ "$runner" = vitest ] && echo run ) >/dev/null 2>&1
done
exit 0
