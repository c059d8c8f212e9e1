#!/usr/bin/env bash
cd "$(dirname "$0")/.."
O=${OUT:-build/gpuB}; mkdir -p "$O" build
t0=$SECONDS
ROUNDS=1 timeout 560 bash bench/before_after.sh .gl/baseline build/ba --sweeps > build/ba.txt 2>&1
echo "rc=$? after $((SECONDS - t0)) s"
tail -40 build/ba.txt
rm -rf build/ba/build-*
cp build/ba.txt "$O/"; tar czf "$O/ba.tgz" build/ba
