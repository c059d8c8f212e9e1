"""Compares two benchmark runs (bench/before_after.sh): pclreduce's kernel,
pipelined and blocking times of the second over the first, per backend, type,
op and n, with CUB's ratio in the same two runs as the noise floor (CUB did not
change), and the blocking call's difference in microseconds.
usage: python3 bench/compare_runs.py BASELINE_DIR CURRENT_DIR"""
import csv, glob, os, statistics, sys


def load(d):
    rows = {}
    for f in glob.glob(os.path.join(d, "*", "bench_*.csv")):
        for r in csv.DictReader(open(f)):
            if r["status"] == "ok":
                rows[(r["backend"], r["type"], r["op"], int(r["log2n"]), r["impl"])] = r
    return rows


def main(a, b):
    old, new = load(a), load(b)
    keys = sorted(k for k in new if k in old and k[4] == "pclreduce")
    if not keys:
        print("no common points")
        return 1
    print("backend  type    op   log2n  kernel new/old  pipelined new/old  blocking new/old (us)  (CUB pipelined new/old)")
    summary, blocking = {}, {}
    for k in keys:
        o, n = old[k], new[k]
        rk = float(n["kernel_us"]) / float(o["kernel_us"])
        rp = float(n["pipelined_us"]) / float(o["pipelined_us"])
        cub = (k[0], k[1], k[2], k[3], "cub")
        rc = float(new[cub]["pipelined_us"]) / float(old[cub]["pipelined_us"]) if cub in new and cub in old else None
        rb = float(n["blocking_us"]) / float(o["blocking_us"])
        db = float(n["blocking_us"]) - float(o["blocking_us"])
        summary.setdefault((k[0], k[3]), []).append(rp)
        blocking.setdefault((k[0], k[3]), []).append((rb, db))
        print("%-8s %-7s %-4s %5d  %14.3f  %17.3f  %8.3f (%+7.2f)  %s" % (k[0], k[1], k[2], k[3], rk, rp, rb, db, "(%.3f)" % rc if rc else ""))
    print("\nmedian new/old per backend and size (all type/op pairs): pipelined, blocking (and its difference in us)")
    for (backend, lg), v in sorted(summary.items()):
        b = blocking[(backend, lg)]
        print("%-8s 2^%-3d pipelined %.3f (min %.3f, max %.3f)  blocking %.3f (%+.2f us)" % (backend, lg, statistics.median(v), min(v), max(v),
              statistics.median(x[0] for x in b), statistics.median(x[1] for x in b)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
