#!/usr/bin/env bash
# Three research sessions against a real small local model (not CI).
#
# The model: Gemma 3 270M behind llama-cpp-python's OpenAI-compatible server
# (`/work/shared/tools/local-model.sh setup`, then `... start`: port 27440;
# it answers HTTP 500 to response_format json_schema). One model, one request
# at a time. The corpus: a few pages of the Rust documentation rustup
# installs, indexed into a temporary SLEUTH_HOME.
#
# usage: bench/local-model.sh [BASE_URL] [SLEUTH_BINARY]
# Prints, per session: wall vs the time limit, calls, tokens vs the budget,
# repairs, which phases the model did and which fell back, confidence,
# caveats, the report's first lines and whether its citations verified.
set -euo pipefail
BASE=${1:-http://127.0.0.1:27440/v1}
BIN=${2:-$(dirname "$0")/../target/debug/sleuth}
TIME_LIMIT=${TIME_LIMIT:-240}
TOKENS=${TOKENS:-60000}
if ! curl -sf -m 5 "$BASE/models" >/dev/null; then
  echo "no model server at $BASE: run /work/shared/tools/local-model.sh start" >&2
  exit 2
fi
HOME_DIR=$(mktemp -d)
trap 'rm -rf "$HOME_DIR"' EXIT
HTML="$(rustc --print sysroot)/share/doc/rust/html"
mkdir -p "$HOME_DIR/corpus"
for p in book/ch09-02-recoverable-errors-with-result.html std/convert/trait.From.html std/rc/index.html \
         std/sync/struct.Arc.html book/ch16-03-shared-state.html std/pin/index.html book/ch13-01-closures.html; do
  [ -f "$HTML/$p" ] && cp "$HTML/$p" "$HOME_DIR/corpus/$(echo "$p" | tr / _)"
done
cat > "$HOME_DIR/config.toml" <<CFG
[research]
reasoner = "llm"
preset = "simple"
[search]
chains = [["local"]]
[local]
corpus = "$HOME_DIR/corpus"
[llm]
base_url = "$BASE"
model = "gemma-3-270m"
structured_output = "json_schema"   # lowered by itself on the server's 500
fold_system_prompt = true           # the gemma chat format drops system messages
context_window = 8192
max_output_tokens = 1024
timeout_secs = 120
concurrency = 1
CFG
export SLEUTH_HOME="$HOME_DIR"
"$BIN" index >/dev/null 2>&1 || true
for q in "How does the ? operator convert one error type into another?" \
         "What is the difference between Rc and Arc?" \
         "What does Pin guarantee?"; do
  echo "=== $q"
  start=$(date +%s)
  set +e
  "$BIN" run --ask first --time-limit "$TIME_LIMIT" --token-budget "$TOKENS" "$q" > "$HOME_DIR/report.md" 2> "$HOME_DIR/stderr.txt"
  status=$?
  set -e
  wall=$(( $(date +%s) - start ))
  session=$(ls -td "$HOME_DIR"/sessions/*/ 2>/dev/null | head -1)
  echo "exit $status, wall ${wall} s of a ${TIME_LIMIT} s limit"
  python3 - "$session" "$TOKENS" <<'PY'
import json, sys, pathlib
d = pathlib.Path(sys.argv[1]); budget = int(sys.argv[2])
ev = [json.loads(l) for l in (d / "events.jsonl").read_text().splitlines() if l.strip()] if (d / "events.jsonl").exists() else []
kind = lambda e: next(iter(e.get("event", {})), "") if isinstance(e.get("event"), dict) else e.get("event", {}).get("type", "")
def events(name):
    out = []
    for e in ev:
        body = e.get("event", {})
        if isinstance(body, dict) and (body.get("type") == name or name in body):
            out.append(body.get(name, body))
    return out
usage = events("usage_recorded")
calls = sum(u.get("usage", u).get("calls", 1) for u in usage)
prompt = sum(u.get("usage", u).get("prompt_tokens", 0) for u in usage)
done = sorted({u.get("usage", u).get("role") for u in usage})
errors = events("error")
failed = sorted({e.get("phase") for e in errors})
repairs = sum(1 for e in errors if "attempt" in e.get("message", ""))
print(f"calls {calls}, prompt tokens {prompt} of a {budget} budget, failed phases (fell back): {', '.join(failed) or 'none'}")
print(f"phases the model answered: {', '.join(r for r in done if r)}; malformed-after-repairs errors: {repairs}")
s = d / "summary.json"
if s.exists():
    j = json.loads(s.read_text())
    m = j.get("metrics", j)
    print("confidence", j.get("confidence", m.get("confidence")), "· degraded", m.get("degraded"), "· status", j.get("status", j.get("outcome")))
for r in events("report_written"):
    rep = r.get("report", r)
    for c in rep.get("caveats", []):
        print("caveat:", c)
    print("report:", " / ".join(rep.get("markdown", "").strip().splitlines()[:4])[:400])
for v in events("verified"):
    v = v.get("verification", v)
    print(f"citations: {v.get('claims_supported')} of {v.get('claims_checked')} claims verified, unknown ids {v.get('unknown_ids')}")
PY
done
