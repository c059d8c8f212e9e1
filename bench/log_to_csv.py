#!/usr/bin/env python3
"""Rebuilds bench_*.csv files from the tables bench/run.sh printed (its log),
for a run whose CSV files could not be brought back. Repetition counts are
not in the printed table; those columns are left empty.

usage: python3 bench/log_to_csv.py RUN_LOG [RESULTS_DIR=bench/results]"""
import csv, os, re, sys

COLS = ["backend", "device", "type", "op", "n", "log2n", "bytes", "impl", "kernel_us", "pipelined_us", "blocking_us",
        "gbps_kernel", "gbps_pipelined", "kernel_reps", "pipelined_reps", "pipelined_batch", "blocking_reps",
        "buffers", "status"]
ROW = re.compile(r"^(uint|int|float|double)\s+(sum|min|max)\s+2\^(\d+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+")
SIZE = {"uint": 4, "int": 4, "float": 4, "double": 8}


def main():
    log = open(sys.argv[1]).read()
    out_root = sys.argv[2] if len(sys.argv) > 2 else "bench/results"
    parts = re.split(r"\[bench/run.sh \+\d+s\] (\S+): sweep\n", log)
    for slug, body in zip(parts[1::2], parts[2::2]):
        backend = "cuda" if slug.endswith("-cuda") else "opencl"
        head = re.search(r"^# pclreduce [^\n]*?(?:on|OpenCL: [^/]*/) ?([^,\n]+)", body, re.M)
        device = head.group(1).split(" (")[0].strip() if head else slug
        rows = []
        for line in body.splitlines():
            m = ROW.match(line)
            if not m:
                continue
            t, op, k, impl, ke, pi, bl = m.groups()
            n = 1 << int(k)
            nbytes = n * SIZE[t]  # every implementation reads the same input
            vals = [float(x) if x != "nan" else float("nan") for x in (ke, pi, bl)]
            gb = lambda us: "%.2f" % (nbytes / us / 1e3) if us == us and us > 0 else "nan"
            rows.append([backend, device, t, op, n, k, nbytes, impl, ke, pi, bl, gb(vals[0]), gb(vals[1]),
                         "", "", "", "", "", "ok"])
        path = os.path.join(out_root, slug, "bench_%s.csv" % backend)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(COLS)
            w.writerows(rows)
        print("%s: %d rows" % (path, len(rows)))


if __name__ == "__main__":
    main()
