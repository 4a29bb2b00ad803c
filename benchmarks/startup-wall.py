#!/usr/bin/env python3
# Median wall time of $RUNS (default 50) runs of a command, output to /dev/null, with the
# load average: `taskset -c 0 benchmarks/startup-wall.py nfcscope decode --format jsonl ten.pcap`.
import subprocess, sys, time, statistics, os
n = int(os.environ.get("RUNS", "50"))
cmd = sys.argv[1:]
ts = []
for _ in range(n):
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ts.append((time.perf_counter() - t) * 1000)
ts.sort()
print(f"median {statistics.median(ts):.2f} ms  min {ts[0]:.2f}  p90 {ts[int(n*0.9)]:.2f}  (n={n}, load {open('/proc/loadavg').read().split()[0:3]})")
