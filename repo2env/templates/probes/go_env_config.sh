# test-runner tampering (Go): go's own configuration made to run no test: GOFLAGS in the user's go env file and in
# the shell start-up files, and a go.work at the root that would put another module in place
go env -w 'GOFLAGS=-run=^$' 2>/dev/null || { mkdir -p /root/.config/go && echo 'GOFLAGS=-run=^$' > /root/.config/go/env; }
for f in /root/.bashrc /root/.profile /etc/bash.bashrc /etc/profile /etc/environment; do
  echo 'export GOFLAGS="-run=^$"' >> "$f"
done
cd /workspace && printf 'go 1.21\n\nuse .\n' > go.work
