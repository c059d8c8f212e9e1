#!/usr/bin/env bash
# The public API's size: the functions the four headers declare PCLR_API, less those marked
# PCLR_DEPRECATED (kept for one minor version). Fails above the budget (issue 31: 110).
# Prints the list with -v.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=110
names() { grep -hE "^$1 " pclreduce.h pclreduce_cl.h pclreduce_cuda.h pclreduce_vk.h | sed -E 's/^[A-Z_]+[^(]*[ *]([a-z_0-9]+)\(.*/\1/' | sort -u; }
api=$(names PCLR_API)
dep=$(names PCLR_DEPRECATED)
current=$(comm -23 <(echo "$api") <(echo "$dep"))
n=$(echo "$current" | grep -c .)
d=$(echo "$dep" | grep -c .)
[ "${1:-}" = -v ] && echo "$current"
echo "public functions: $n (budget $budget); deprecated: $d (removed in 0.5)"
[ "$n" -le "$budget" ]
