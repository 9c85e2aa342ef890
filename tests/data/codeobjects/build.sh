#!/usr/bin/env bash
# Rebuilds the test code objects and LLVM's views of them with LLVM 22. Run by hand, once: the
# outputs are committed so that the tests never need LLVM.
#   <name>.hsaco    the code object
#   <name>.objdump  `llvm-objdump-22 -d` of it: what gpubench.isa.codeobject.objdump must print
#   <name>.notes    `llvm-readelf-22 --notes` of it, the metadata facts the tests check
# A wave64 object also gets <name>.wave32.objdump: plain `llvm-objdump-22 -d` decodes gfx11 code as
# wave32 whatever the kernel descriptor says, so its .objdump is made with +wavefrontsize64, the
# wave size the kernels really run with.
set -euo pipefail
cd "$(dirname "$0")"

hip() {  # hip <output name> <offload arch> [extra clang flags...]
  local name=$1 arch=$2
  shift 2
  clang-22 -x hip --cuda-device-only --no-gpu-bundle-output -nogpulib -nogpuinc \
    --offload-arch="$arch" -O3 "$@" saxpy.hip -o "$name.hsaco"
}

asm() {  # asm <output name> <source> <mcpu>
  llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu="$3" -filetype=obj "$2" -o "$1.o"
  ld.lld-22 -shared "$1.o" -o "$1.hsaco"
  rm "$1.o"
}

hip saxpy-gfx1100 gfx1100
hip saxpy-gfx1100-w64 gfx1100 -mwavefrontsize64
hip saxpy-gfx1201 gfx1201
hip saxpy-gfx942 gfx942:xnack+ -mcode-object-version=5
hip saxpy-gfx950 gfx950 -mcode-object-version=4
asm branches-gfx1100 branches.s gfx1100

for obj in *.hsaco; do
  name=${obj%.hsaco}
  mattr=()
  if [[ $name == *-w64 ]]; then
    mattr=(--mattr=+wavefrontsize64)
    llvm-objdump-22 -d "$obj" > "$name.wave32.objdump"
  fi
  llvm-objdump-22 -d "${mattr[@]}" "$obj" > "$name.objdump"
  llvm-readelf-22 --notes "$obj" > "$name.notes"
done
