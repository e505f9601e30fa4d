#!/usr/bin/env bash
# Whole-process time of `sleuth sessions` over 1,000 sessions (target:
# under 200 ms). The sessions are copies of the schema-2 fixture
# log, each with its own id. The first run finds no summary.json and
# rebuilds (and stores) every one from its log; the timed runs after it
# read summaries only, as every later listing does.
#
# Usage: bench/sessions_list.sh [path/to/sleuth]
#   default binary: target/release/sleuth (built if missing)
#   N=1000 sessions, RUNS=21 timed runs (override in the environment)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/sleuth}
N=${N:-1000}
RUNS=${RUNS:-21}
[ -x "$BIN" ] || cargo build --release --locked
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
TEMPLATE=tests/fixtures/schema-v2.jsonl

for i in $(seq 1 "$N"); do
  id=$(printf '20250101-%06d-%04x' "$i" "$i")
  dir="$HOME_DIR/sessions/$id"
  mkdir -p "$dir/sources"
  sed "1s/\"session_id\":\"[^\"]*\"/\"session_id\":\"$id\"/" "$TEMPLATE" > "$dir/events.jsonl"
done

run_ms() {
  local start end
  start=$(date +%s%N)
  SLEUTH_HOME="$HOME_DIR" "$BIN" sessions > "$HOME_DIR/out.txt"
  end=$(date +%s%N)
  echo $(( (end - start) / 1000000 ))
}

cold=$(run_ms)
rows=$(($(wc -l < "$HOME_DIR/out.txt") - 1))
[ "$rows" -eq "$N" ] || { echo "expected $N rows, got $rows" >&2; exit 1; }
times=()
for _ in $(seq 1 "$RUNS"); do times+=("$(run_ms)"); done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p")
min=$(echo "$sorted" | head -1)
max=$(echo "$sorted" | tail -1)
echo "sleuth sessions, $N sessions ($BIN):"
echo "  first run (rebuilds $N summaries from their logs): ${cold} ms"
echo "  later runs (summaries): median ${median} ms, min ${min} ms, max ${max} ms over $RUNS runs"
