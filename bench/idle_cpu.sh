#!/usr/bin/env bash
# Whole-process CPU of the real binary, idle on a finished session, in tmux.
# Reads utime+stime of the sleuth process from /proc/<pid>/stat over 10 s.
# Target: under 1% of a core.
#
#   bench/idle_cpu.sh            # release build
#   SECS=30 bench/idle_cpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${SECS:-10}
command -v tmux >/dev/null || { echo "tmux is required" >&2; exit 1; }
cargo build --release --locked --bin sleuth --example sample_session >/dev/null 2>&1
home=$(mktemp -d)
socket="sleuth-idle-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$home"' EXIT
id=$(target/release/examples/sample_session "$home" 5)

measure() { # $1: label, $2: text on screen once settled, rest: sleuth arguments
  local label=$1 ready=$2; shift 2
  tmux -L "$socket" kill-server 2>/dev/null || true
  sleep 0.5
  local cmd
  cmd=$(printf '%q ' "$PWD/target/release/sleuth" "$@")
  tmux -L "$socket" new-session -d -s main -x 100 -y 30 \
    "SLEUTH_HOME='$home' TERM=xterm-256color $cmd; sleep 600"
  local pid=""
  for _ in $(seq 50); do
    pid=$(pgrep -P "$(tmux -L "$socket" display-message -p -t main '#{pane_pid}')" -x sleuth || true)
    [ -n "$pid" ] && break
    sleep 0.1
  done
  [ -n "$pid" ] || { echo "sleuth did not start" >&2; exit 1; }
  local seen=""
  for _ in $(seq 100); do
    tmux -L "$socket" capture-pane -p -t main | grep -q "$ready" && { seen=1; break; }
    sleep 0.2
  done
  [ -n "$seen" ] || { echo "never saw \"$ready\":" >&2; tmux -L "$socket" capture-pane -p -t main >&2; exit 1; }
  sleep 1 # let it settle
  local tck before after
  tck=$(getconf CLK_TCK)
  before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  sleep "$SECS"
  after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  awk -v b="$before" -v a="$after" -v t="$tck" -v s="$SECS" -v l="$label" \
    'BEGIN { printf "%s: %d ticks in %d s = %.3f%% of a core (target < 1%%)\n", l, a - b, s, (a - b) / t / s * 100 }'
  tmux -L "$socket" send-keys -t main q
}

measure "idle, reviewing a finished session (sleuth open)" "REVIEW" open "$id"

# A live session that runs to the end on a small corpus, then sits idle.
corpus="$home/corpus"
mkdir -p "$corpus"
for n in 1 2 3 4; do
  printf '# Errors, part %s\n\nThe question mark operator returns early with the error and converts it with From::from, so error type %s becomes the error type of the function. A match on Result is the long form of the same early return, written out by hand.\n' "$n" "$n" > "$corpus/errors-$n.md"
done
measure "idle, a finished live session (sleuth \"question\")" "finished" \
  --set "local.corpus=$corpus" "How does the question mark operator convert errors?"
