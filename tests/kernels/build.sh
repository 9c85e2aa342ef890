#!/usr/bin/env bash
# Rebuilds the test kernels' code objects with LLVM 22: build/<name>-<target>[-w64].hsaco for each
# <name>.hip and each target on its first line (`// targets: gfx1100 gfx1100-w64 ...`). Run by hand
# after changing a kernel: the code objects are committed, so the tests never need LLVM.
#   bash tests/kernels/build.sh            # every kernel
#   bash tests/kernels/build.sh ew_f32     # only these
# The flags are fixed so that a rebuild with the same LLVM gives the same bytes:
#   -O3                      what real HIP builds use
#   -mcode-object-version=5  pinned, not clang's default, which moves between releases
#   -ffp-contract=off        every float operation is the one written: no a*b+c fused behind the
#                            references' back (the kernels write __builtin_fmaf where they mean fma)
#   -DWAVE_SIZE=32|64        for the few kernels that pick wave-size-specific builtins
set -euo pipefail
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-22}

compile() {  # compile <source> <output> <offload arch> <wave size> [extra flags...]
  local src=$1 out=$2 arch=$3 wave=$4
  shift 4
  "$CLANG" -x hip -std=c++17 --cuda-device-only --no-gpu-bundle-output -nogpulib -nogpuinc \
    --offload-arch="$arch" -O3 -mcode-object-version=5 -ffp-contract=off -DWAVE_SIZE="$wave" \
    -Wall -Werror "$@" "$src" -o "$out"
}

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  for src in *.hip; do names+=("${src%.hip}"); done
fi

mkdir -p build
for name in "${names[@]}"; do
  src=$name.hip
  line=$(head -n 1 "$src")
  if [[ $line != "// targets: "* ]]; then
    echo "$src: the first line must be '// targets: <target> ...'" >&2
    exit 1
  fi
  rm -f "build/$name"-*.hsaco
  for target in ${line#// targets: }; do
    case $target in
      *-w64) compile "$src" "build/$name-$target.hsaco" "${target%-w64}" 64 -mwavefrontsize64 ;;
      gfx9*) compile "$src" "build/$name-$target.hsaco" "$target" 64 ;;
      *)     compile "$src" "build/$name-$target.hsaco" "$target" 32 ;;
    esac
    echo "build/$name-$target.hsaco"
  done
done
