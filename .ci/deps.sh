#!/usr/bin/env bash
# Installs what pclreduce needs from Debian when it is missing (as root), or
# prints the exact command. Used by `make demo`, `make test` and .ci/run.
set -u
need=()
for p in pocl-opencl-icd ocl-icd-opencl-dev opencl-headers clinfo gcc g++ clang make libclang-rt-dev valgrind \
         openmpi-bin libopenmpi-dev \
         mesa-vulkan-drivers libvulkan1 libvulkan-dev libshaderc1 libshaderc-dev glslc glslang-dev spirv-tools vulkan-tools; do
  dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ]; then
  echo "installing: ${need[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null || { echo "apt-get install failed" >&2; exit 1; }
else
  echo "missing packages; run: sudo apt-get update && sudo apt-get install -y ${need[*]}" >&2
  exit 1
fi
