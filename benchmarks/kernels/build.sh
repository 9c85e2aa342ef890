#!/usr/bin/env bash
# Rebuilds the benchmark kernels (committed, so benchmarks need no LLVM) for gfx1100 wave32.
set -euo pipefail
cd "$(dirname "$0")"
for src in *.hip; do
  clang-22 -x hip -std=c++17 --cuda-device-only --no-gpu-bundle-output -nogpulib -nogpuinc \
    --offload-arch=gfx1100 -O3 -mcode-object-version=5 "$src" -o "${src%.hip}-gfx1100.hsaco"
done
