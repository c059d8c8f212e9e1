#!/usr/bin/env bash
# Prints the path of a shaderc the Vulkan tests and tools can load, or nothing.
# Debian 12's libshaderc1 leaves glslang's and SPIRV-Tools' symbols undefined
# (they are shipped only as static libraries), so dlopen refuses it: this
# links those static libraries around it into $1/libshaderc_shared.so
# (default build/tests; `make` builds build/libshaderc_shared.so with it, where
# the tools look beside themselves). Prints libshaderc.so.1 where that loads.
set -u
out=${1:-build/tests}
case $out in /*) ;; *) out=$PWD/$out ;; esac
L=/usr/lib/x86_64-linux-gnu
loads() { # does dlopen take the system's libshaderc.so.1? (python3's ctypes, else ldd -r on the file)
  if command -v python3 >/dev/null 2>&1; then
    python3 -c "import ctypes; ctypes.CDLL('libshaderc.so.1').shaderc_compiler_initialize" >/dev/null 2>&1
  else
    [ -f "$L/libshaderc.so.1" ] && ! ldd -r "$L/libshaderc.so.1" 2>&1 | grep -q 'undefined symbol'
  fi
}
if loads; then
  echo libshaderc.so.1; exit 0
fi
[ -f "$L/libshaderc.so.1" ] && [ -f "$L/libglslang.a" ] && [ -f "$L/libSPIRV-Tools-opt.a" ] || exit 0
mkdir -p "$out"
if [ ! -f "$out/libshaderc_shared.so" ]; then
  # (a temporary name first: an interrupted link leaves no half-written library behind)
  g++ -shared -o "$out/libshaderc_shared.so.tmp$$" -Wl,--whole-archive "$L/libglslang.a" "$L/libMachineIndependent.a" \
      "$L/libGenericCodeGen.a" "$L/libOSDependent.a" "$L/libOGLCompiler.a" "$L/libSPIRV.a" "$L/libSPIRV-Tools-opt.a" \
      "$L/libSPIRV-Tools.a" -Wl,--no-whole-archive -Wl,--no-as-needed "$L/libshaderc.so.1" -lpthread >/dev/null 2>&1 &&
    mv -f "$out/libshaderc_shared.so.tmp$$" "$out/libshaderc_shared.so" || { rm -f "$out/libshaderc_shared.so.tmp$$"; exit 0; }
fi
echo "$out/libshaderc_shared.so"
