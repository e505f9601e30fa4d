#!/usr/bin/env bash
# Wall time of `cargo test` on this checkout, split into build+link and run.
#
# Each timed round touches src/lib.rs (so the library, the binary and every
# test target rebuild and relink, as after an edit), times
# `cargo test --locked --no-run`, then times the run of every test
# (`cargo test --locked --no-fail-fast`) with everything already built.
# A first untimed build warms the target directory.
#
# Usage: bench/test-suite.sh [rounds]   (default 2; logs in $LOGS or a temp dir)
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-2}
LOGS=${LOGS:-$(mktemp -d)}
mkdir -p "$LOGS"

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

cargo test --locked --no-run >"$LOGS/warm.log" 2>&1 || { echo "warm build failed: $LOGS/warm.log" >&2; exit 1; }
targets=$(grep -c 'Executable' "$LOGS/warm.log")
echo "test executables (incl. unit tests of lib and bin): $targets"
for r in $(seq 1 "$ROUNDS"); do
  touch src/lib.rs
  s=$(now); cargo test --locked --no-run >"$LOGS/build-$r.log" 2>&1; e=$(now)
  build=$(secs "$s" "$e")
  s=$(now); cargo test --locked --no-fail-fast >"$LOGS/run-$r.log" 2>&1; status=$?; e=$(now)
  run=$(secs "$s" "$e")
  counts=$(awk '/^test result:/ { p += $4; f += $6; i += $8 } END { printf "%d passed, %d failed, %d ignored", p, f, i }' "$LOGS/run-$r.log")
  echo "round $r: build+link ${build} s, run ${run} s (exit $status; $counts)"
done
echo "logs: $LOGS"
