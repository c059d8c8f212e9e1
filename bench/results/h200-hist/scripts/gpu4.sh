#!/usr/bin/env bash
# issue 34's fourth GPU run: the weighted histogram's and uint8's knobs (hist_cuda), hist_probe's integer rule.
set -u
cd "$(dirname "$0")/../../../.."
O=${OUT:-build/g4}; mkdir -p "$O"
t0=$SECONDS
NV=/usr/local/cuda/bin/nvcc
$NV -O3 -std=c++17 -arch=sm_90 bench/hist_probe.cu -o build/hist_probe > "$O/build.log" 2>&1 &
$NV -O3 -std=c++17 -arch=sm_90 -I. bench/hist_cuda.cu -o build/hist_cuda -ldl >> "$O/build.log" 2>&1 &
wait
echo "built at $((SECONDS - t0)) s"
h() { timeout 60 build/hist_cuda "$@" /tmp 2>&1 | grep -E "^\| [uf]|^# [uf]" | sed "s/^/$* : /"; }
h --only weighted --log 20
h --only weighted --log 20 --unroll 1
h --only weighted --log 20 --vector 1
h --only weighted --log 20 --group 64
h --only weighted --log 20 --group 1024
h --only weighted --log 20 --groups-per-unit 16
h --only uint8 --groups-per-unit 8
h --only uint8 --groups-per-unit 16
h --only uint8 --groups-per-unit 16 --unroll 2
h --only uint16 --groups-per-unit 16
h --only "float, 256" --groups-per-unit 8
timeout 200 build/hist_probe 2>&1 | tee "$O/hist-probe.log" | head -14
echo "done at $((SECONDS - t0)) s"
