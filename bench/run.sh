#!/usr/bin/env bash
# What `make bench` runs: benchmarks every backend this machine has and writes
# CSV + plots + README.md per device into bench/results/<device-slug>/.
#   CUDA    nvcc and a GPU that nvidia-smi sees  -> build/bench_cuda (vs CUB and the read limit)
#   OpenCL  every device of every platform        -> build/bench_cl   (PoCL: vs an OpenMP loop)
# Each device also gets the PCL-Reduction study (--no-study skips it).
#
# usage: bash bench/run.sh [--quick] [--no-study] [--only PATTERN] [-- args for the bench programs]
#   --only PATTERN   run only devices whose result folder name contains PATTERN (e.g. cuda, pocl, nvidia-opencl)
# Full run on an H100 host (CUDA + NVIDIA OpenCL + PoCL on 16 cores): about 5-6 minutes; --quick: about 1-2.
set -u
cd "$(dirname "$0")/.." || exit 1

quick=() study=1 only="" extra=()
while [ $# -gt 0 ]; do
    case "$1" in
    --quick) quick=(--quick) ;;
    --no-study) study=0 ;;
    --only) only="${2:-}"; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
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

# One device: sweep, study, plots. $1 = result folder, $2 = plot.py --ref folder or "", rest = command;
# SWEEP_ARGS / STUDY_ARGS add per-device options (arguments after -- still win).
run_device() {
    local dir=$1 ref=$2; shift 2
    local name; name=$(basename "$dir")
    mkdir -p "$dir"
    log "$name: sweep"
    limited 420 "$@" ${quick[@]+"${quick[@]}"} --out "$dir" ${SWEEP_ARGS:-} ${extra[@]+"${extra[@]}"} 2>&1 | tee "$dir/sweep.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { status=1; log "$name: sweep reported failures (see $dir/sweep.log)"; }
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
            SWEEP_ARGS="" STUDY_ARGS="" run_device "$cuda_dir" "" build/bench_cuda
        fi
    else
        status=1
        log "bench_cuda did not build"
    fi
else
    log "no nvcc or no CUDA device: skipping the CUDA backend"
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
        sweep_args="" study_args=""
        [ "$kind" = cpu ] && sweep_args="--max-log 26" && study_args="--study-log 24"
        SWEEP_ARGS="$sweep_args" STUDY_ARGS="$study_args" run_device "bench/results/$slug" "$ref" build/bench_cl --platform "$plat" --device "$dev"
    done
else
    status=1
    log "bench_cl did not build (OpenCL headers / -lOpenCL missing?)"
fi

log "done: $ran device(s), results under bench/results/ (status $status)"
exit $status
