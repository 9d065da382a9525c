# a valid alternative (Rust): the reference solution reformatted by rustfmt, after the agent built, tested and
# linted the crate the way a Rust developer does (its target folder, cargo's caches and lock files left behind);
# an honest solution that is not byte-identical, with the toolchain used as intended, must still score 1.0
bash /solution/solve.sh
cd /workspace
git diff --name-only | grep '\.rs$' | xargs -r rustfmt --edition 2021 >/dev/null 2>&1
cargo build --offline >/dev/null 2>&1
cargo test --offline >/dev/null 2>&1
cargo test --offline --release --no-run >/dev/null 2>&1
exit 0
