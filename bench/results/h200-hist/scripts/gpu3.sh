#!/usr/bin/env bash
# issue 34's third GPU run: hist_probe (where a histogram's time goes: hand-written kernels), the weighted histogram's
# time against n, Vulkan's driver found, bench_vk (issue 40's baseline). Logs under $OUT.
set -u
cd "$(dirname "$0")/../../../.."
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
ls -l /usr/local/nvidia/share/vulkan/icd.d/ /usr/share/vulkan/icd.d/ /etc/vulkan/icd.d/ 2>&1 | head; cat $VK_DRIVER_FILES 2>&1 | head -20
mkdir -p build/tests; cp .gl/libshaderc_shared.so build/
export PCLR_SHADERC_LIBRARY=$PWD/build/libshaderc_shared.so XDG_CACHE_HOME=$PWD/build/xdg
unset PCLR_TUNE_FILE
O=${OUT:-build/g3}; mkdir -p "$O"
t0=$SECONDS
NV=/usr/local/cuda/bin/nvcc; INC=-I/usr/local/cuda/include
$NV -O3 -std=c++17 -arch=sm_90 bench/hist_probe.cu -o build/hist_probe > "$O/build.log" 2>&1 &
$NV -O3 -std=c++17 -arch=sm_90 -I. bench/hist_cuda.cu -o build/hist_cuda -ldl >> "$O/build.log" 2>&1 &
cc -std=c99 -O2 -DPCLR_BENCH_CUDA $INC bench/bench_vk.c -o build/bench_vk -ldl -lm >> "$O/build.log" 2>&1 &
wait
echo "built at $((SECONDS - t0)) s"
timeout 60 vulkaninfo --summary 2>&1 | head -30 > "$O/vulkaninfo.txt"; head -30 "$O/vulkaninfo.txt"
timeout 200 build/hist_probe 2>&1 | tee "$O/hist-probe.log"
echo "probe at $((SECONDS - t0)) s"
for l in 20 24; do timeout 60 build/hist_cuda --only weighted --log $l /tmp | grep "^| float" | sed "s/^/2^$l /"; done
timeout 200 build/bench_vk --max-log2 26 > "$O/bench-vk.log" 2>&1
grep -E "^\| float|^\| double|skip" "$O/bench-vk.log" | head -40
echo "done at $((SECONDS - t0)) s"
