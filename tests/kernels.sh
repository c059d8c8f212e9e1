#!/usr/bin/env bash
# Writes the golden kernels of tests/kernels/list.txt with pclreduce-gen (default: build/pclreduce-gen) into DIR
# (default: tests/kernels). Run from the repository root: make kernels; tests/run.sh's step `kernels` writes them into
# a temporary folder and fails on any difference from the committed ones.
set -euo pipefail
dir=${1:-tests/kernels}
gen=${PCLR_GEN:-build/pclreduce-gen}
mkdir -p "$dir"
count=0
while read -r name backends args; do
    case "$name" in ''|'#'*) continue ;; esac
    for ((k = 0; k < ${#backends}; ++k)); do
        case "${backends:k:1}" in
            o) backend=opencl ext=cl ;;
            c) backend=cuda ext=cu ;;
            v) backend=vulkan ext=comp ;;
            *) echo "tests/kernels.sh: $name: unknown backend letter '${backends:k:1}'" >&2; exit 2 ;;
        esac
        # (the arguments are words as a shell reads them: a description in quotes)
        eval "set -- $args"
        "$gen" --backend "$backend" "$@" > "$dir/$name.$ext"
        count=$((count + 1))
    done
done < tests/kernels/list.txt
echo "tests/kernels.sh: $count kernels in $dir"
