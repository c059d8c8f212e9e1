#!/usr/bin/env bash
# Per-call host time before and after a change, on the GPU machine: bench/percall_ab.c built against
# an older tree's headers and against this tree's, the two binaries run in turn three times (so that
# drift hits both), then the median of the three medians per way and size, the difference in us and
# the ratio. Issue 31's bar: at most +0.1 us per call from 2^10 to 2^22, unchanged within noise above.
#   bash bench/percall_ab.sh BASELINE_DIR [OUT_DIR]
# BASELINE_DIR: an older tree, e.g. `git archive <commit> | tar -x -C .baseline`.
set -u
cd "$(dirname "$0")/.."
base=${1:?usage: bench/percall_ab.sh BASELINE_DIR [OUT_DIR]}
out=${2:-build/percall_ab}
CUDA_PATH=${CUDA_PATH:-/usr/local/cuda}
mkdir -p "$out"
for side in baseline current; do
    dir=$PWD
    [ "$side" = baseline ] && dir=$(cd "$base" && pwd)
    gcc -std=c99 -O2 -I"$dir" -I"$CUDA_PATH/include" -o "$out/percall_$side" bench/percall_ab.c -ldl -lm || exit 1
done
for round in 1 2 3; do
    for side in baseline current; do "$out/percall_$side" >"$out/$side.$round.csv" || exit 1; done
done
python3 - "$out" <<'PY'
import csv, statistics, sys
out = sys.argv[1]
def load(side):
    runs = {}
    for r in (1, 2, 3):
        for row in csv.DictReader(open(f"{out}/{side}.{r}.csv")):
            runs.setdefault((row["way"], int(row["log2n"])), []).append(float(row["us_per_call"]))
    return {k: statistics.median(v) for k, v in runs.items()}
b, c = load("baseline"), load("current")
print(f"{'way':18} {'n':>5} {'baseline_us':>12} {'current_us':>11} {'diff_us':>8} {'ratio':>6}")
with open(f"{out}/compare.csv", "w") as f:
    f.write("way,log2n,baseline_us,current_us,diff_us,ratio\n")
    for k in sorted(b, key=lambda k: (k[0], k[1])):
        if k not in c: continue
        d = c[k] - b[k]
        print(f"{k[0]:18} 2^{k[1]:<3} {b[k]:12.2f} {c[k]:11.2f} {d:+8.2f} {c[k] / b[k]:6.3f}")
        f.write(f"{k[0]},{k[1]},{b[k]:.3f},{c[k]:.3f},{d:.3f},{c[k] / b[k]:.4f}\n")
PY
