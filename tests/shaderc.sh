#!/usr/bin/env bash
# Prints the path of a shaderc the Vulkan tests can load, or nothing.
# Debian 12's libshaderc1 leaves glslang's and SPIRV-Tools' symbols undefined
# (they are shipped only as static libraries), so dlopen refuses it: this
# links those static libraries around it into $1/libshaderc_shared.so.
set -u
out=${1:-build/tests}
L=/usr/lib/x86_64-linux-gnu
if python3 -c "import ctypes; ctypes.CDLL('libshaderc.so.1').shaderc_compiler_initialize" >/dev/null 2>&1; then
  echo libshaderc.so.1; exit 0
fi
[ -f "$L/libshaderc.so.1" ] && [ -f "$L/libglslang.a" ] && [ -f "$L/libSPIRV-Tools-opt.a" ] || exit 0
mkdir -p "$out"
if [ ! -f "$out/libshaderc_shared.so" ]; then
  g++ -shared -o "$out/libshaderc_shared.so" -Wl,--whole-archive "$L/libglslang.a" "$L/libMachineIndependent.a" \
      "$L/libGenericCodeGen.a" "$L/libOSDependent.a" "$L/libOGLCompiler.a" "$L/libSPIRV.a" "$L/libSPIRV-Tools-opt.a" \
      "$L/libSPIRV-Tools.a" -Wl,--no-whole-archive -Wl,--no-as-needed "$L/libshaderc.so.1" -lpthread >/dev/null 2>&1 || exit 0
fi
echo "$PWD/$out/libshaderc_shared.so"
