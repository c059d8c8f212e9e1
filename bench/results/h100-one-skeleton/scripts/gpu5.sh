#!/usr/bin/env bash
# Vulkan (and CUDA beside it) before/after: bench_vk of the baseline tree and of this one, alternating, ROUNDS times.
set -u
cd "$(dirname "$0")/.."
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p build; cp .gl/libshaderc_shared.so build/
export PCLR_SHADERC_LIBRARY=$PWD/build/libshaderc_shared.so
O=${OUT:-build/gpu5}; mkdir -p "$O"
for side in baseline current; do
  dir=$PWD; [ $side = baseline ] && dir=$PWD/.gl/baseline
  cc -std=c99 -O2 -DPCLR_BENCH_CUDA -I/usr/local/cuda/include "$dir/bench/bench_vk.c" -o build/bench_vk_$side -ldl -lm || exit 1
done
for round in $(seq 1 ${ROUNDS:-2}); do
  for side in baseline current; do
    timeout 200 build/bench_vk_$side --max-log2 ${MAXLOG:-26} >"$O/vk_${side}_$round.txt" 2>&1; echo "$side $round rc=$?"
  done
done
python3 - "$O" <<'PY'
import sys, glob, statistics, re
o = sys.argv[1]
def load(side):
    runs = {}
    for f in sorted(glob.glob(f"{o}/vk_{side}_*.txt")):
        for line in open(f):
            c = [x.strip() for x in line.strip().strip('|').split('|')]
            if len(c) == 8 and re.match(r'^\d', c[2]):
                runs.setdefault((c[0], c[1], c[2]), []).append((float(c[3]), float(c[4]) if c[4] != '-' else None))
    return runs
b, a = load("baseline"), load("current")
vk, cu = [], []
print("| type | op | n | vulkan before us | after us | after/before | cuda after/before |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for k in b:
    if k not in a: continue
    vb = statistics.median(x[0] for x in b[k]); va = statistics.median(x[0] for x in a[k])
    cb = [x[1] for x in b[k] if x[1]]; ca = [x[1] for x in a[k] if x[1]]
    r = va / vb; vk.append(r)
    rc = statistics.median(ca) / statistics.median(cb) if cb and ca else float('nan'); cu.append(rc)
    print(f"| {k[0]} | {k[1]} | {k[2]} | {vb:.2f} | {va:.2f} | {r:.3f} | {rc:.3f} |")
print(f"vulkan after/before: median {statistics.median(vk):.3f} min {min(vk):.3f} max {max(vk):.3f} over {len(vk)} points")
print(f"cuda after/before: median {statistics.median(cu):.3f} min {min(cu):.3f} max {max(cu):.3f}")
PY
