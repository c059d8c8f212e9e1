#!/usr/bin/env bash
# bench_cuda --vocab of the integer arg ops, before (caa5264~1) and after (caa5264, pclr_load_wins), on one card.
set -u
cd "$(dirname "$0")/../../.."
O=${OUT:-build/gS}; mkdir -p "$O" build
t0=$SECONDS
mkdir -p build/old/bench build/old/examples && git show caa5264~1:pclreduce.h > build/old/pclreduce.h && cp pclreduce_*.h build/old/ && cp bench/*.cu bench/*.cuh bench/*.h build/old/bench/ && cp examples/pclr_args.h build/old/examples/
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -I. bench/bench_cuda.cu -o build/bench_cuda -ldl > "$O/nvcc.log" 2>&1 &
/usr/local/cuda/bin/nvcc -O3 -std=c++17 -arch=sm_90 -Ibuild/old build/old/bench/bench_cuda.cu -o build/bench_cuda_old -ldl > "$O/nvcc-old.log" 2>&1 &
wait; ls -la build/bench_cuda build/bench_cuda_old | awk '{print $5, $9}'
nvidia-smi --query-gpu=name --format=csv,noheader
echo "built at $((SECONDS - t0)) s"
for side in old new old new; do
  exe=build/bench_cuda; [ $side = old ] && exe=build/bench_cuda_old
  timeout 90 $exe --vocab --types uint8,int8,int16,int --ops argmin,argmax,argminmax --target-ms 5 --out "$O/vocab-$side" > "$O/vocab-$side.log.tmp" 2>&1; echo "vocab-$side rc=$?"
  cat "$O/vocab-$side.log.tmp" >> "$O/vocab-$side.log"
done
for side in old new; do echo "== $side"; grep -E " 2\^(24|28) " "$O/vocab-$side.log" | grep pclreduce | awk '{print $1, $2, $4, $9}' | sort | paste -sd' ' | fold -w 220; done
tar czf "$O/logs.tgz" "$O"/*.log 2>/dev/null
echo "at $((SECONDS - t0)) s"
