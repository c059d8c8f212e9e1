#!/usr/bin/env bash
# What `make bench` runs: benchmarks every backend this machine has and writes
# CSV + plots + README.md per device into bench/results/<device-slug>/.
#   CUDA    nvcc and a GPU that nvidia-smi sees  -> build/bench_cuda (vs CUB and the read limit)
#   OpenCL  every device of every platform        -> build/bench_cl   (PoCL: vs an OpenMP loop)
# Each device also gets the PCL-Reduction study (--no-study skips it) and the vocabulary run
# (--vocab: every type x op x accumulator vs the read limit, CUB's ArgMin/ArgMax, CUB Sum+Min+Max,
# CUB uint8 sums, and on CPU devices the OpenMP stats loop; --no-vocab skips it); the CUDA device
# also gets bench_map (map expressions: dot vs cuBLAS, one-launch auto-exposure vs four passes) and
# bench_rows (rows, columns and segments of 2^28 floats vs CUB DeviceSegmentedReduce and the read kernel).
#
# With --exact (or --exact-only) each device also gets the exact-sum run (float and double sums,
# accumulate native and exact at 2^20, 2^24, 2^28 (double 2^27); on CUDA beside CUB's two-phase Sum):
# exact.log and exact_<backend>.csv.
#
# usage: bash bench/run.sh [--quick] [--no-study] [--no-vocab] [--vocab-only] [--exact] [--exact-only] [--only PATTERN] [-- args for the bench programs]
#   --only PATTERN   run only devices whose result folder name contains PATTERN (e.g. cuda, pocl, nvidia-opencl)
#   --vocab-only     only the vocabulary run (no sweep, no study) on each device, then the plots
# Each program run has a time limit (sweep 420 s, study 240 s, vocabulary 240 s, on CPU devices 150 s;
# a killed run keeps the rows it wrote; PoCL compiles each new kernel, which can take seconds). Arguments after -- go to every program run (e.g. --types uint8 only suits --vocab-only).
set -u
cd "$(dirname "$0")/.." || exit 1

quick=() study=1 sweep=1 vocab=1 exact=0 only="" extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=(--quick) ;;
    --no-study) study=0 ;;
    --no-vocab) vocab=0 ;;
    --vocab-only) vocab=1 sweep=0 study=0 ;;
    --exact) exact=1 ;;
    --exact-only) exact=1 vocab=0 sweep=0 study=0 ;;
    --only) only="${2:-}"; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
    esac
    shift
done

start=$(date +%s)
log() { echo "[bench/run.sh +$(( $(date +%s) - start ))s] $*"; }
status=0
ran=0
mkdir -p build bench/results

# Runs with a time limit where `timeout` exists (the programs flush their CSV row by row, so a
# killed run still leaves the points it measured).
limited() {
    local secs=$1; shift
    if command -v timeout >/dev/null 2>&1; then timeout "$secs" "$@"; else "$@"; fi
}

wanted() { [ -z "$only" ] || [[ "$1" == *"$only"* ]]; }

# One device: sweep, study, vocabulary, plots. $1 = result folder, $2 = plot.py --ref folder or "",
# rest = command; SWEEP_ARGS / STUDY_ARGS / VOCAB_ARGS add per-device options (arguments after -- still win).
run_device() {
    local dir=$1 ref=$2; shift 2
    local name; name=$(basename "$dir")
    mkdir -p "$dir"
    if [ "$sweep" = 1 ]; then
        log "$name: sweep"
        limited 420 "$@" ${quick[@]+"${quick[@]}"} --out "$dir" ${SWEEP_ARGS:-} ${extra[@]+"${extra[@]}"} 2>&1 | tee "$dir/sweep.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; log "$name: sweep reported failures (see $dir/sweep.log)"; }
    fi
    if [ "$vocab" = 1 ]; then
        log "$name: vocabulary"
        limited "${VOCAB_LIMIT:-240}" "$@" --vocab ${quick[@]+"${quick[@]}"} --out "$dir" ${VOCAB_ARGS:-} ${extra[@]+"${extra[@]}"} 2>&1 | tee "$dir/vocab.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; log "$name: vocabulary run reported failures or was cut off (see $dir/vocab.log)"; }
    fi
    if [ "$exact" = 1 ]; then
        log "$name: exact sums"
        limited "${VOCAB_LIMIT:-240}" "$@" --exact ${quick[@]+"${quick[@]}"} --out "$dir" ${extra[@]+"${extra[@]}"} 2>&1 | tee "$dir/exact.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; log "$name: exact run reported failures or was cut off (see $dir/exact.log)"; }
    fi
    if [ "$study" = 1 ]; then
        log "$name: study"
        limited 240 "$@" --study ${quick[@]+"${quick[@]}"} --out "$dir" ${STUDY_ARGS:-} 2>&1 | tee "$dir/study.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; log "$name: study reported failures (see $dir/study.log)"; }
    fi
    if python3 -c "import matplotlib" 2>/dev/null; then
        if [ -n "$ref" ] && [ -d "$ref" ]; then python3 bench/plot.py "$dir" --ref "$ref"; else python3 bench/plot.py "$dir"; fi || status=1
    else
        log "python3 matplotlib missing: no plots (pip install matplotlib, then python3 bench/plot.py $dir)"
    fi
    ran=$((ran + 1))
}

# ---------------------------------------------------------------- CUDA
cuda_dir=""
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then PATH="$PATH:/usr/local/cuda/bin"; fi
if command -v nvcc >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
    arch="sm_${cap:-90}"
    log "building build/bench_cuda (-arch=$arch)"
    if nvcc -O3 -std=c++17 -arch="$arch" -I. bench/bench_cuda.cu -o build/bench_cuda -ldl; then
        cuda_dir=$(build/bench_cuda --print-out) || cuda_dir=""
        if [ -n "$cuda_dir" ] && wanted "$(basename "$cuda_dir")"; then
            SWEEP_ARGS="" STUDY_ARGS="" VOCAB_ARGS="" run_device "$cuda_dir" "" build/bench_cuda
            # map expressions: dot vs cuBLAS, one-launch auto-exposure vs four passes (map.log, map_cuda.csv)
            if nvcc -O3 -std=c++17 -arch="$arch" -I. bench/bench_map.cu -o build/bench_map -lcublas -ldl; then
                limited 240 build/bench_map "$cuda_dir" | tee "$cuda_dir/map.log" || status=1
            else
                status=1
                log "bench_map did not build"
            fi
            # rows, columns and segments: every shape of 2^28 floats vs CUB's segmented reduce (rows.log, rows_cuda.csv)
            if nvcc -O3 -std=c++17 -arch="$arch" -I. bench/bench_rows.cu -o build/bench_rows -ldl; then
                limited 300 build/bench_rows "$cuda_dir" | tee "$cuda_dir/rows.log" || status=1
            else
                status=1
                log "bench_rows did not build"
            fi
        fi
    else
        status=1
        log "bench_cuda did not build"
    fi
else
    log "no nvcc or no CUDA device: skipping the CUDA backend"
fi

# ---------------------------------------------------------------- Vulkan (beside CUDA on the same GPU)
if [ -f /usr/include/vulkan/vulkan.h ] && wanted "vulkan"; then
    vk_dir=bench/results/$( [ -n "$cuda_dir" ] && basename "$cuda_dir" | sed 's/-cuda$/-vulkan/' || echo vulkan)
    mkdir -p "$vk_dir"
    [ -n "${PCLR_SHADERC_LIBRARY:-}" ] || export PCLR_SHADERC_LIBRARY=$(bash tests/shaderc.sh build)
    vk_cuda=""
    [ -n "$cuda_dir" ] && vk_cuda="-DPCLR_BENCH_CUDA -I${CUDA_PATH:-/usr/local/cuda}/include"
    if cc -std=c99 -O2 $vk_cuda bench/bench_vk.c -o build/bench_vk -ldl -lm; then
        limited 200 build/bench_vk | tee "$vk_dir/bench_vk.log" || status=1
    else
        status=1
        log "bench_vk did not build"
    fi
fi

# ---------------------------------------------------------------- OpenCL
log "building build/bench_cl"
if cc -O3 -march=native -ffast-math -fopenmp -I. -c bench/omp_anchor.c -o build/omp_anchor.o &&
   cc -O2 -fopenmp -I. bench/bench_cl.c build/omp_anchor.o -o build/bench_cl -lOpenCL -lm; then
    mapfile -t devices < <(build/bench_cl --list 2>/dev/null)
    [ ${#devices[@]} -gt 0 ] || log "no OpenCL device"
    for line in "${devices[@]}"; do
        read -r plat dev slug kind _ <<<"$line"
        wanted "$slug" || continue
        ref=""
        # NVIDIA OpenCL: plots and ratios against the CUDA results of the same GPU
        [[ "$slug" == *nvidia-opencl* ]] && [ -n "$cuda_dir" ] && ref="$cuda_dir"
        # CPU devices: inputs up to 2^26 and the study at 2^24 (a 1 GiB call takes tens of ms on a
        # CPU; this keeps the whole run within ~8 minutes on the H100 host)
        # vocabulary on CPUs: 2^20, 2^24 and 2^26
        sweep_args="" study_args="" vocab_args=""
        vocab_limit=240
        [ "$kind" = cpu ] && sweep_args="--max-log 26" && study_args="--study-log 24" && vocab_args="--max-log 26" && vocab_limit=150
        SWEEP_ARGS="$sweep_args" STUDY_ARGS="$study_args" VOCAB_ARGS="$vocab_args" VOCAB_LIMIT="$vocab_limit" run_device "bench/results/$slug" "$ref" build/bench_cl --platform "$plat" --device "$dev"
        # CPU devices: row sums (2^20 rows x 64 and more) against the OpenMP loop (rows_cpu.log)
        if [ "$kind" = cpu ] && cc -O2 -fopenmp -I. bench/rows_cpu.c build/omp_anchor.o -o build/rows_cpu -ldl -lm; then
            limited 120 build/rows_cpu --platform $((plat + 1)) | tee "bench/results/$slug/rows_cpu.log" || status=1
        fi
    done
else
    status=1
    log "bench_cl did not build (OpenCL headers / -lOpenCL missing?)"
fi

# ---------------------------------------------------------------- the CPU table (issue 35)
# every type x op: pclreduce on the OpenCL CPU device (PoCL) vs an OpenMP loop on all cores, and the CPU
# reference vs the loop on one thread, 2^26 elements (--quick: 2^22) -> bench/results/cpu-<cpu>-<cores>c/
if wanted "cpu-"; then
    cpu_slug=$(sed -n 's/^model name[^:]*: *//p' /proc/cpuinfo 2>/dev/null | head -n1 | tr 'A-Z' 'a-z' |
               sed -e 's/([^)]*)//g' -e 's/ processor.*//' -e 's/ cpu @.*//' -e 's/[^a-z0-9]\{1,\}/-/g' -e 's/^-//' -e 's/-$//')
    cpu_dir="bench/results/cpu-${cpu_slug:-unknown}-$(nproc)c"
    log "building build/bench_cpu"
    if cc -O3 -march=native -fopenmp -I. -c bench/cpu_anchor.c -o build/cpu_anchor.o &&
       cc -std=c99 -O2 -I. -c bench/bench_cpu.c -o build/bench_cpu.o &&
       cc -fopenmp build/bench_cpu.o build/cpu_anchor.o -o build/bench_cpu -ldl -lm; then
        mkdir -p "$cpu_dir"
        log "$(basename "$cpu_dir"): every type x op vs OpenMP"
        limited 1200 build/bench_cpu ${quick[@]+"${quick[@]}"} --out "$cpu_dir" 2>&1 | tee "$cpu_dir/cpu.log"
        [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; log "bench_cpu reported failures or was cut off (see $cpu_dir/cpu.log)"; }
        python3 bench/plot_cpu.py "$cpu_dir" || status=1
        ran=$((ran + 1))
    else
        status=1
        log "bench_cpu did not build"
    fi
fi

log "done: $ran device(s), results under bench/results/ (status $status)"
exit $status
