#!/usr/bin/env bash
# Final H100 run: every suite (gpu1.sh) + test_vocab on NVIDIA Vulkan; the new ops (issue 33) against the read
# kernel and CUB (bench_cuda --vocab); exact sums on honest data (issue 36 item 3) and NVIDIA OpenCL at group 1024.
set -u
cd "$(dirname "$0")/.."
O=${OUT:-build/gG}; mkdir -p "$O" build
t0=$SECONDS
( /usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/bench_cuda.cu -o build/bench_cuda -ldl > "$O/nvcc.log" 2>&1; echo "nvcc rc=$?" >> "$O/nvcc.log" ) &
OUT=build/gG/c bash .gl/gpu1.sh > "$O/suites.txt" 2>&1
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json PCLR_SHADERC_LIBRARY=$PWD/build/libshaderc_shared.so XDG_CACHE_HOME=$PWD/build/xdg
gcc -std=c99 -O2 -DPCLR_TEST_VULKAN -o build/tests/test_vocab_vk tests/test_vocab.c -ldl -lm && \
  timeout 150 env PCLR_TEST_QUICK=1 build/tests/test_vocab_vk --backend vulkan > "$O/vocab_vk.log" 2>&1; echo "vocab-vk rc=$? $(grep -Eo '[0-9]+ passed, [0-9]+ failed' $O/vocab_vk.log | tail -1)" >> "$O/suites.txt"
tail -24 "$O/suites.txt"
wait; tail -1 "$O/nvcc.log"; echo "at $((SECONDS - t0)) s"
timeout 120 build/bench_cuda --vocab --types uint,int,float --ops argmin,argmax,prod,and,or,xor,any,all,argminmax --target-ms 10 --out "$O/vocab33" > "$O/vocab33.log" 2>&1; echo "vocab33 rc=$?"
grep -E "FAIL" "$O/vocab33.log" | head -5
for d in uniform grid; do
  timeout 60 build/bench_cuda --exact --target-ms 10 --data "$d" --out "$O/exact-$d" > "$O/exact-$d.log" 2>&1; echo "exact $d rc=$?"
done
echo "at $((SECONDS - t0)) s"
python3 - "$O" <<'PY'
import csv, glob, os, sys
o = sys.argv[1]
print("| type | op | acc | n | pclreduce us | of read | vs anchor |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for f in glob.glob(o + "/vocab33/*.csv"):
    for r in csv.DictReader(open(f)):
        if r.get("impl") == "pclreduce" and int(r["log2n"]) >= 24:
            print(f"| {r['type']} | {r['op']} | {r['accumulate']} | 2^{r['log2n']} | {float(r['kernel_us']):.1f} | {r['of_read']} | {r['vs_anchor']} ({r['anchor']}) |")
print()
print("| data | type | n | exact / native kernel |")
print("| --- | --- | --- | --- |")
for f in sorted(glob.glob(o + "/exact-*/exact_*.csv")):
    rows = list(csv.DictReader(open(f)))
    nat = {(r["type"], r["n"]): r for r in rows if r["accumulate"] == "native" and r["impl"].startswith("pclr")}
    for r in rows:
        if r["accumulate"] == "exact" and r["impl"].startswith("pclr") and (r["type"], r["n"]) in nat:
            n = nat[(r["type"], r["n"])]
            print(f"| {r.get('data','?')} | {r['type']} | 2^{r['log2n']} | {float(r['kernel_us'])/float(n['kernel_us']):.3f} |")
PY
tar czf "$O/logs.tgz" build/gG 2>/dev/null
