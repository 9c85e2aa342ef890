"""The environment tinygrad needs to run on MOCKKFD or MOCKPCI on a machine with LLVM and no ROCm.

- The AMD renderer: with no renderer named in DEV (DEV=MOCKKFD+AMD), tinygrad would try HIP
  first, and Debian's comgr cannot compile for gfx11/gfx12: gpubench picks the LLVM renderer
  (DEV=MOCKKFD+AMD:LLVM) and says so once.
- libLLVM: tinygrad's LLVM renderer emits opaque-pointer IR that LLVM 14/15 reject; LLVM_PATH
  points it at the newest libLLVM (>= 17) installed, unless the user set one.
- The CPU device (host-side buffers, its start-up helpers) compiles with `clang` (env CC); where
  only a versioned clang-NN is installed (Debian's llvm-22 packages), CC names it.
"""
from __future__ import annotations

import glob
import re
import shutil

MIN_LLVM = 17
LIBRARY_GLOBS = ("/usr/lib/x86_64-linux-gnu/libLLVM.so.*", "/usr/lib/x86_64-linux-gnu/libLLVM-*.so",
                 "/usr/lib/llvm-*/lib/libLLVM.so.*", "/usr/lib/llvm-*/lib/libLLVM-*.so")


def newest_libllvm() -> str | None:
    found = []
    for pattern in LIBRARY_GLOBS:
        for path in glob.glob(pattern):
            version = re.search(r"libLLVM[.-](?:so\.)?(\d+)", path)
            if version and int(version.group(1)) >= MIN_LLVM:
                found.append((int(version.group(1)), path))
    return max(found)[1] if found else None


def use_versioned_clang(environ) -> None:
    if environ.get("CC") or shutil.which("clang"):
        return
    versions = [int(m.group(1)) for path in glob.glob("/usr/bin/clang-[0-9]*")
                if (m := re.fullmatch(r".*/clang-(\d+)", path))]
    if versions:
        environ["CC"] = f"clang-{max(versions)}"


def configure(environ) -> list[str]:
    """Fill in what a MOCKKFD run needs in ``environ``; returns notes for the user."""
    notes = []
    targets = environ.get("DEV", "").split(";")
    first = targets[0]
    device = first.split("+", 1)[-1].split(":")
    if device[0].upper() == "AMD" and len(device) == 1:
        targets[0] = first + ":LLVM"
        notes.append("using tinygrad's LLVM renderer (AMD:LLVM): Debian's comgr cannot compile for gfx11/gfx12")
    environ["DEV"] = ";".join(targets)
    use_versioned_clang(environ)
    if "LLVM_PATH" not in environ:
        library = newest_libllvm()
        if library is None:
            notes.append(f"no libLLVM >= {MIN_LLVM} found: install llvm-22 (tools/setup.sh) or set LLVM_PATH")
        else:
            environ["LLVM_PATH"] = library
    return notes


def is_emulated(environ) -> bool:
    """DEV names a device of the emulated machine: MOCKKFD (amdkfd's ioctls) or MOCKPCI (AM over PCI)."""
    return environ.get("DEV", "").upper().startswith(("MOCKKFD", "MOCKPCI"))
