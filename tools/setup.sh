#!/usr/bin/env bash
# Installs what gpubench needs on a fresh Debian 12 / Ubuntu machine: LLVM 22 (the reference
# assembler/disassembler and compiler used by the oracle tests, and the libLLVM tinygrad compiles
# AMD kernels with), tmux (the debugger's terminal test) and the Python package with its test
# dependencies (tinygrad 0.14.0 among them). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v llvm-mc-22 >/dev/null 2>&1 || ! command -v tmux >/dev/null 2>&1; then
    SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo "sudo")
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq llvm-22 clang-22 lld-22 tmux >/dev/null
fi
python3 -m pip install -q --disable-pip-version-check -e '.[test]'
