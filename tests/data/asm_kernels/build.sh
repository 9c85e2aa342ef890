#!/usr/bin/env bash
# Rebuilds the oracle: each <name>.s here, assembled by llvm-mc-22 and linked by ld.lld-22 into
# <name>.hsaco, as `gpubench asm --filetype=obj` must write it too. Run by hand; the objects are
# committed so that tests/isa/test_codeobject_writer.py needs no LLVM. Each source names its
# llvm-mc options on a `// llvm-mc:` line, which the test reads as well.
set -euo pipefail
cd "$(dirname "$0")"

for source in *.s; do
  name=${source%.s}
  read -r -a options <<< "$(sed -n 's|^// llvm-mc: ||p' "$source")"
  llvm-mc-22 -triple=amdgcn-amd-amdhsa "${options[@]}" -filetype=obj "$source" -o "$name.o"
  ld.lld-22 -shared "$name.o" -o "$name.hsaco"
  rm "$name.o"
done
