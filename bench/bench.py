#!/usr/bin/env python3
"""Whole-process benchmark: runs each named command N times after a warm-up, interleaved so that
all variants see the same machine load, and prints the median wall time, CPU time (user+sys) and
peak RSS of each. Peak RSS comes from wait4() of that very process, so it is per run, not a max
over the whole benchmark.

  bench.py [--runs N] [--warmup W] [--json FILE] NAME=COMMAND [NAME=COMMAND ...]

COMMAND is split like a shell would (shlex), but run without a shell."""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time


RSS_FILE = "/tmp/nhc-bench-rss.%d" % os.getpid()


def run_once(argv, env):
    # GNU time reports the peak RSS of its child; measuring our own child instead would count the
    # Python interpreter it was forked from (~15 MB) before the exec.
    t0 = time.perf_counter()
    p = subprocess.Popen(["/usr/bin/time", "-q", "-f", "%M %x", "-o", RSS_FILE] + argv,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = (time.perf_counter() - t0) * 1000.0
    cpu = (ru.ru_utime + ru.ru_stime) * 1000.0
    with open(RSS_FILE) as f:
        fields = f.read().split()
    return wall, cpu, int(fields[0]) / 1024.0, int(fields[1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("commands", nargs="+")
    a = ap.parse_args()
    named = []
    for c in a.commands:
        name, _, cmd = c.partition("=")
        named.append((name, shlex.split(cmd)))
    env = dict(os.environ)
    for name, argv in named:
        for _ in range(a.warmup):
            run_once(argv, env)
    samples = {name: [] for name, _ in named}
    for _ in range(a.runs):
        for name, argv in named:
            samples[name].append(run_once(argv, env))
    out = {}
    width = max(len(n) for n, _ in named)
    print(f"{'command':<{width}}  {'wall ms':>8}  {'cpu ms':>8}  {'peak RSS MB':>11}  exit codes   (median of {a.runs} runs after {a.warmup} warm-up)")
    for name, _ in named:
        s = samples[name]
        wall = statistics.median(x[0] for x in s)
        cpu = statistics.median(x[1] for x in s)
        rss = statistics.median(x[2] for x in s)
        codes = sorted({x[3] for x in s})
        out[name] = {"wall_ms": round(wall, 1), "cpu_ms": round(cpu, 1), "rss_mb": round(rss, 1), "exit_codes": codes}
        print(f"{name:<{width}}  {wall:8.1f}  {cpu:8.1f}  {rss:11.1f}  {codes}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
