#!/usr/bin/env bash
cd "$(dirname "$0")/.."
O=${OUT:-build/gpuA}; mkdir -p "$O"
OUT=build/gA/c bash .gl/gpu1.sh > build/gA-c.txt 2>&1; tail -22 build/gA-c.txt
OUT=build/gA/vk ROUNDS=2 MAXLOG=26 bash .gl/gpu5.sh > build/gA-vk.txt 2>&1; tail -12 build/gA-vk.txt
cp build/gA-c.txt build/gA-vk.txt "$O/"; tar czf "$O/logs.tgz" build/gA
