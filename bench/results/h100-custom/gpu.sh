#!/usr/bin/env bash
# Issue 33, user-defined reductions (op custom) on the H100: bench_cuda --custom. Descriptions equal to a built-in
# (float sum, float max, int argmin by hand) against PCLR_SUM / PCLR_MAX / PCLR_ARGMIN: time ratio (target <= 1.02 at
# 2^24 and 2^28) and the same bits; log-sum-exp and the fused sum / sum of squares / max |x| of floats against the
# read kernel (target of_read >= 0.95 at 2^28). Sizes 2^20, 2^24, 2^28; U(-1, 1) floats, every mantissa bit random.
# Run from anywhere on the GPU machine:  bash bench/results/h100-custom/gpu.sh   (logs under $OUT, default build/gC)
set -u
cd "$(dirname "$0")/../../.."
O=${OUT:-build/gC}; mkdir -p "$O" build
t0=$SECONDS
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/bench_cuda.cu -o build/bench_cuda -ldl > "$O/nvcc.log" 2>&1; echo "nvcc rc=$?" >> "$O/nvcc.log"
tail -1 "$O/nvcc.log"; echo "at $((SECONDS - t0)) s"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > "$O/gpu.txt" 2>&1
git log --oneline -1 > "$O/commit.txt" 2>&1
timeout 150 build/bench_cuda --custom --target-ms 10 --out "$O/custom" > "$O/custom.log" 2>&1; echo "custom rc=$?"
grep -E "FAIL" "$O/custom.log" | head -12
grep -E "^target|targets met" "$O/custom.log"
echo "at $((SECONDS - t0)) s"
python3 - "$O" <<'PY'
import csv, os, sys
f = os.path.join(sys.argv[1], "custom", "custom_cuda.csv")
if not os.path.exists(f):
    print("no", f); sys.exit(0)
def num(r, k):
    try: return float(r[k])
    except (KeyError, ValueError): return float("nan")
print("| impl | type | op | n | kernel us | built-in us | ratio | same bits | of read | status |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for r in csv.DictReader(open(f)):
    k, b, rd = num(r, "kernel_us"), num(r, "builtin_us"), num(r, "read_kernel_us")
    ratio = f"{k / b:.3f}" if b == b and b > 0 else "-"
    of = f"{rd / k:.3f}" if k == k and k > 0 else "-"
    bus = f"{b:.2f}" if b == b else "-"
    print(f"| {r['impl']} | {r['type']} | {r['op']} | 2^{r['log2n']} | {k:.2f} | {bus} | {ratio} | {r.get('same_bits', '-')} | {of} | {r['status'][:60]} |")
PY
tar czf "$O/logs.tgz" "$O"/*.log "$O"/*.txt "$O"/custom 2>/dev/null
