#!/usr/bin/env bash
# Side-by-side criterion benches of two builds: the engine, sessions and TUI
# benches of BEFORE and AFTER (each a checkout whose benches were built with
# `cargo bench --locked --bench engine --bench sessions --bench tui --no-run`),
# run alternately for ROUNDS rounds so that both sides see the same load.
# Prints one TSV line per figure (round, side, load average, bench, median)
# and then a table of medians and after/before ratios.
#
#   bench/before-after.sh /path/to/old/checkout /path/to/new/checkout [rounds]
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_CHECKOUT AFTER_CHECKOUT [ROUNDS]" >&2; exit 2; }
before=$1 after=$2 rounds=${3:-5}
newest() { # the newest built executable of bench $2 in checkout $1
  ls -t "$1"/target/release/deps/"$2"-* 2>/dev/null | grep -v '\.d$' | head -1
}
out=$(mktemp)
for round in $(seq 1 "$rounds"); do
  for bench in engine sessions tui; do
    for side in before after; do
      dir=${!side}
      exe=$(newest "$dir" "$bench")
      [ -n "$exe" ] || { echo "no built $bench bench in $dir/target/release/deps" >&2; exit 2; }
      load=$(cut -d' ' -f1 /proc/loadavg)
      (cd "$dir" && "$exe" --bench --noplot --warm-up-time 1 --measurement-time 3 2>/dev/null) |
        awk -v r="$round" -v s="$side" -v l="$load" \
          '/^[a-zA-Z]/ {name=$0} /^ +time:/ {print r "\t" s "\t" l "\t" name "\t" $4 " " $5}' | tee -a "$out"
    done
  done
done
python3 - "$out" <<'PY'
import collections, statistics as st, sys
unit = {"ns": 1e-6, "µs": 1e-3, "ms": 1.0, "s": 1000.0}
runs = collections.defaultdict(lambda: collections.defaultdict(list))
loads = []
for line in open(sys.argv[1]):
    parts = line.rstrip("\n").split("\t")
    if len(parts) != 5:
        continue
    _, side, load, name, t = parts
    value, u = t.split()
    if u in unit:
        runs[name][side].append(float(value) * unit[u])
        loads.append(float(load))
def ms(v):
    return f"{v / 1000:.3f} s" if v >= 1000 else f"{v:.2f} ms" if v >= 1 else f"{v * 1000:.0f} µs"
print("| bench | before (median) | after (median) | after / before | paired ratios | rounds |")
print("|---|---:|---:|---:|---:|---:|")
for name, sides in runs.items():
    b, a = sides["before"], sides["after"]
    if b and a:
        ratios = sorted(y / x for x, y in zip(b, a))
        print(f"| {name} | {ms(st.median(b))} | {ms(st.median(a))} | {st.median(a) / st.median(b):.2f} "
              f"| {ratios[0]:.2f}–{ratios[-1]:.2f} | {len(a)} |")
if loads:
    print(f"load average: {min(loads)}–{max(loads)}, median {st.median(loads)}")
PY
