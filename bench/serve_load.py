#!/usr/bin/env python3
"""Load benchmark of `sleuth serve` (standard library only).

1. 50 concurrent synchronous POST /run (built-in reasoner, standard preset,
   a fixture corpus written here): all must finish, 50 sessions in the store,
   none failed; prints p50/p99 latency, wall time and the server's peak RSS.
2. The same 50 questions as separate `sleuth run` processes (as many at a
   time as the server runs sessions): the throughput ratio.
3. 200 concurrent asynchronous requests at a server with 2 slots and 8
   queue places, every question ambiguous (each admitted session holds its
   slot waiting on its clarifying question): exactly 190 must get 429, and
   every session folder must hold a readable log (nothing half-written).

usage: bench/serve_load.py [path to sleuth]   (default target/release/sleuth)
"""

import concurrent.futures as futures
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

BIN = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/sleuth")


def write_corpus(root):
    os.makedirs(root, exist_ok=True)
    for i in range(1, 25):
        with open(os.path.join(root, f"doc{i}.md"), "w") as f:
            f.write(
                f"# Widget model {i}\n\nWidget {i} connects to gadget {i * 7} through a bus of width {i * 2} bits.\n\n"
                f"## Latency\n\nThe latency of widget {i} is {i * 5} microseconds under load, and gadget {i * 7} "
                f"buffers up to {i * 11} frames.\n\n## Power\n\nWidget {i} draws {i * 13} milliwatts.\n"
            )


def write_ambiguous(root):
    os.makedirs(root, exist_ok=True)
    pages = {
        "planet/overview.md": ("Mercury the planet", "Mercury is the smallest planet of the solar system and the closest planet to the sun. Its orbit around the sun takes eighty-eight days, the shortest orbit of any planet. The surface of the planet is covered in craters."),
        "planet/orbit.md": ("The orbit of Mercury", "Mercury moves on an eccentric orbit around the sun. Astronomers measured the precession of its orbit, which general relativity explained. The planet has almost no atmosphere, so craters and cliffs cover its surface."),
        "planet/missions.md": ("Missions to Mercury", "Two spacecraft have visited the planet Mercury: one flew past the planet three times and another orbited it for years. They mapped the craters of the planet and studied how the sun heats its surface during its orbit."),
        "element/overview.md": ("Mercury the element", "Mercury is a chemical element and the only metal that is liquid at room temperature. The liquid metal is dense and silvery, and it was once common in thermometers. Mercury vapour is toxic, so the metal must be handled with care."),
        "element/toxicity.md": ("Toxicity of mercury", "Mercury compounds are toxic to the nervous system. The metal and its vapour accumulate in fish, and eating contaminated fish is the main way people take in the element. Old thermometers release the toxic liquid when they break."),
        "element/uses.md": ("Uses of mercury", "The liquid metal mercury was used in thermometers, barometers and dental fillings. Gold miners mix the element with ore because the metal dissolves gold, which releases toxic vapour. Many countries have since banned the metal in thermometers."),
    }
    for rel, (title, text) in pages.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(f"# {title}\n\n{text}\n")


class Server:
    def __init__(self, home, corpus, *args):
        env = dict(os.environ, SLEUTH_HOME=home)
        env.pop("SLEUTH_SERVE_TOKEN", None)
        self.proc = subprocess.Popen(
            [BIN, "serve", "--bind", "127.0.0.1:0", "--set", f"local.corpus={corpus}", *args],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        )
        for line in self.proc.stderr:
            m = re.search(r"listening on (\S+)", line)
            if m:
                self.base = m.group(1)
                return
        raise SystemExit("the server did not start")

    def peak_rss_mb(self):
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=60)


def post(url, body, timeout=600):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"content-type": "application/json"})
    start = time.monotonic()
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null"), time.monotonic() - start, dict(r.headers)
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null"), time.monotonic() - start, dict(e.headers)


def sessions(home):
    out = subprocess.run([BIN, "sessions", "--json"], env=dict(os.environ, SLEUTH_HOME=home), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main():
    tmp = tempfile.mkdtemp(prefix="sleuth-load-")
    corpus, home = os.path.join(tmp, "docs"), os.path.join(tmp, "home")
    write_corpus(corpus)
    env = dict(os.environ, SLEUTH_HOME=home)
    subprocess.run([BIN, "index", corpus], env=env, check=True, capture_output=True)
    questions = [f"What is the latency of widget {1 + i % 24} and which gadget does it pair with?" for i in range(50)]

    server = Server(home, corpus)
    start = time.monotonic()
    with futures.ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(lambda q: post(server.base + "/run", {"task": q, "complexity_tier": "standard"}), questions))
    wall = time.monotonic() - start
    peak = server.peak_rss_mb()
    server.stop()
    codes = [r[0] for r in results]
    statuses = [r[1].get("status") if isinstance(r[1], dict) else None for r in results]
    latencies = [r[2] for r in results]
    stored = sessions(home)
    print(f"50 concurrent POST /run: http {sorted(set(codes))}, statuses {sorted(set(map(str, statuses)))}, "
          f"{len(stored)} sessions in the store, {sum(s['status'] == 'failed' for s in stored)} failed")
    print(f"  latency p50 {percentile(latencies, 50):.2f} s, p99 {percentile(latencies, 99):.2f} s; wall {wall:.2f} s; "
          f"server peak RSS {peak:.0f} MB")
    ok = codes.count(200) == 50 and statuses.count("finished") == 50 and len(stored) == 50
    ok = ok and not any(s["status"] == "failed" for s in stored)

    # The same 50 as separate processes, as many at a time as the server ran.
    parallel = 2 * (os.cpu_count() or 1)
    home2 = os.path.join(tmp, "home-cli")
    os.makedirs(home2)
    subprocess.run([BIN, "index", corpus], env=dict(os.environ, SLEUTH_HOME=home2), check=True, capture_output=True)
    run = lambda q: subprocess.run([BIN, "run", "--set", f"local.corpus={corpus}", "--ask", "first", q],
                                   env=dict(os.environ, SLEUTH_HOME=home2), capture_output=True).returncode
    start = time.monotonic()
    with futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        rcs = list(pool.map(run, questions))
    cli_wall = time.monotonic() - start
    print(f"50 `sleuth run` processes ({parallel} at a time): wall {cli_wall:.2f} s, exit codes {sorted(set(rcs))}; "
          f"server throughput ÷ processes = {cli_wall / wall:.2f}")

    # 200 requests at a full server: 2 slots and 8 queue places held by sessions waiting on a question.
    ambiguous, home3 = os.path.join(tmp, "mercury"), os.path.join(tmp, "home-full")
    write_ambiguous(ambiguous)
    server = Server(home3, ambiguous, "--max-concurrent", "2", "--max-queued", "8")
    with futures.ThreadPoolExecutor(max_workers=200) as pool:
        burst = list(pool.map(lambda _: post(server.base + "/run", {"task": "What is mercury?", "async": True}, 60), range(200)))
    time.sleep(1)
    server.stop()
    codes = [r[0] for r in burst]
    retry = [r[3].get("Retry-After") or r[3].get("retry-after") for r in burst if r[0] == 429]
    stored = sessions(home3)
    damaged = [s for s in stored if s["status"] == "damaged"]
    print(f"200 requests at 2 slots + 8 queued: {codes.count(202)} × 202, {codes.count(429)} × 429 "
          f"(all with Retry-After: {all(retry)}), {len(stored)} sessions stored, {len(damaged)} damaged")
    ok = ok and codes.count(202) == 10 and codes.count(429) == 190 and all(retry) and not damaged
    print("OK" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
