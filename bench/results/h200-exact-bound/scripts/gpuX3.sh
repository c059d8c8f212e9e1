#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
O=${OUT:-build/gX3}; mkdir -p "$O" build .gl/loose
t0=$SECONDS
NV=/usr/local/cuda/bin/nvcc
sed 's/) >> 21) + 29u/) >> 21) + 45u/' pclreduce.h > .gl/loose/pclreduce.h; cp pclreduce_cuda.h .gl/loose/
[ -x build/probe_new ] || $NV -O2 -std=c++17 -arch=sm_90 -I. .gl/probe/probe.cu -o build/probe_new -ldl > "$O/b1.log" 2>&1 &
[ -x build/probe_old ] || $NV -O2 -std=c++17 -arch=sm_90 -I.gl/baseline .gl/probe/probe.cu -o build/probe_old -ldl > "$O/b2.log" 2>&1 &
$NV -O2 -std=c++17 -arch=sm_90 -I.gl/loose .gl/probe/probe.cu -o build/probe_loose -ldl > "$O/b3.log" 2>&1 &
wait; echo "built at $((SECONDS - t0)) s"
for k in grid uniform; do for v in new old loose; do build/probe_$v $k 28 exact; build/probe_$v $k 28 exact 4 4 256 8; done; done 2>&1 | tee "$O/probe.log"
for k in grid uniform; do for v in new old; do
  timeout 100 ncu --clock-control none -k regex:pclr_reduce --launch-skip 12 --launch-count 1 --section WarpStateStats --section SourceCounters --section InstructionStats --page source --print-source sass build/probe_$v $k 28 exact > "$O/ncu_${v}_$k.log" 2>&1
  echo "ncu $v $k rc=$? $(wc -l < $O/ncu_${v}_$k.log) lines"
done; done
tar czf "$O/all.tgz" -C "$O" --exclude=all.tgz . 2>/dev/null
echo "done at $((SECONDS - t0)) s"
