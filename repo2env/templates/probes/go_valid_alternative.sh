# a valid alternative (Go): the reference solution reformatted by gofmt -s, after the agent built, vetted and
# tested the module the way a Go developer does (its build cache, test cache and go env left behind); an honest
# solution that is not byte-identical, with the toolchain used as intended, must still score 1.0
bash /solution/solve.sh
cd /workspace
git diff --name-only | grep '\.go$' | xargs -r gofmt -s -w
go build ./... >/dev/null 2>&1
go vet ./... >/dev/null 2>&1
go test ./... >/dev/null 2>&1
go test -count=1 -run . ./... >/dev/null 2>&1
exit 0
