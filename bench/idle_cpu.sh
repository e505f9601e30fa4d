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

measure() { # $1: label, rest: sleuth arguments
  local label=$1; shift
  tmux -L "$socket" kill-server 2>/dev/null || true
  tmux -L "$socket" new-session -d -s main -x 100 -y 30 \
    "SLEUTH_HOME='$home' TERM=xterm-256color $PWD/target/release/sleuth $*; sleep 600"
  local pid=""
  for _ in $(seq 50); do
    pid=$(pgrep -P "$(tmux -L "$socket" display-message -p -t main '#{pane_pid}')" -x sleuth || true)
    [ -n "$pid" ] && break
    sleep 0.1
  done
  [ -n "$pid" ] || { echo "sleuth did not start" >&2; exit 1; }
  sleep 2 # let it draw and settle
  local tck before after
  tck=$(getconf CLK_TCK)
  before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  sleep "$SECS"
  after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
  awk -v b="$before" -v a="$after" -v t="$tck" -v s="$SECS" -v l="$label" \
    'BEGIN { printf "%s: %d ticks in %d s = %.3f%% of a core (target < 1%%)\n", l, a - b, s, (a - b) / t / s * 100 }'
  tmux -L "$socket" send-keys -t main q
}

measure "idle, reviewing a finished session (sleuth open)" open "$id"
