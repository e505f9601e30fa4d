#!/usr/bin/env bash
# Whole-process figures of the embedded defaults, against their targets:
#   1. a full index of the default corpus (the Rust docs rustup installs):
#      wall time (< 60 s) and peak resident memory (< 1 GiB);
#   2. re-indexing with nothing changed (< 5 s);
#   3. a whole standard-preset research session with the built-in reasoner,
#      index already built (< 2 s), median of RUNS runs of `sleuth run`.
#
# Usage: bench/index.sh [path/to/sleuth]
#   default binary: target/release/sleuth (built if missing)
#   RUNS=5 timed sessions (override in the environment)
#   QUESTION="..." the session's question
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/sleuth}
RUNS=${RUNS:-5}
QUESTION=${QUESTION:-"How does the ? operator convert errors?"}
[ -x "$BIN" ] || cargo build --release --locked
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
export SLEUTH_HOME="$HOME_DIR"

# GNU time gives the peak RSS; fall back to wall time alone without it.
timed() {
  local label=$1
  shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "$label: %e s wall, %M KiB peak RSS" "$@" > "$HOME_DIR/out.txt" 2> "$HOME_DIR/err.txt"
    grep "^$label:" "$HOME_DIR/err.txt"
  else
    local start end
    start=$(date +%s%N)
    "$@" > "$HOME_DIR/out.txt" 2> "$HOME_DIR/err.txt"
    end=$(date +%s%N)
    echo "$label: $(( (end - start) / 1000000 )) ms wall"
  fi
}

echo "machine: $(nproc) cores, $(uname -sr)"
timed "full index" "$BIN" index
tail -n 3 "$HOME_DIR/out.txt"
timed "re-index, nothing changed" "$BIN" index
tail -n 1 "$HOME_DIR/out.txt"

times=()
for _ in $(seq 1 "$RUNS"); do
  start=$(date +%s%N)
  "$BIN" run --preset standard --ask first "$QUESTION" > "$HOME_DIR/report.md" 2> /dev/null
  end=$(date +%s%N)
  times+=($(( (end - start) / 1000000 )))
done
sorted=$(printf '%s\n' "${times[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(( (RUNS + 1) / 2 ))p")
echo "standard session (built-in reasoner): median ${median} ms over $RUNS runs (all: $(echo "$sorted" | tr '\n' ' '))"
echo "last report: $(wc -l < "$HOME_DIR/report.md") lines, $(grep -c "^\[[0-9]*\]\|^- \[[0-9]*\]\|^[0-9]*\. " "$HOME_DIR/report.md" || true) source lines"
