import json
import shutil
from pathlib import Path

import numpy as np
import pytest

import gpubench
from gpubench.debug import Session
from gpubench.debug.bundle import BundleWriter, read_blob, read_manifest
from gpubench.isa.arch import ISA
from gpubench.isa.elfwriter import assemble_code_object

HERE = Path(__file__).resolve().parent
KERNELS = HERE.parent / "kernels" / "build"


@pytest.fixture(scope="session")
def reverse_hsaco(tmp_path_factory) -> Path:
    """tests/debug/reverse.s (the planted off-by-one LDS index) assembled into a code object."""
    path = tmp_path_factory.mktemp("debug") / "reverse.hsaco"
    path.write_bytes(assemble_code_object(ISA.get("gfx1100"), (HERE / "reverse.s").read_text()))
    return path


@pytest.fixture
def reverse_session(reverse_hsaco):
    """A session on `reverse` over in = 100..163, with the device and the output buffer."""
    dev = gpubench.Device("gfx1100")
    src, out = dev.to_device(np.arange(100, 164, dtype=np.uint32)), dev.alloc(256)
    session = Session.load(dev, reverse_hsaco, "reverse", grid=(1,), block=(64,), args=(src, out))
    yield session, dev, out
    session.close()


@pytest.fixture
def altered_copy():
    """``alter(bundle, copy, kernel, which, change)``: a copy of ``bundle`` in which ``change(bytes)``
    was applied to what the first launch of ``kernel`` recorded after it, in the region ``which``
    picks (its before, when the launch left it unchanged); returns the copy."""
    def alter(bundle: Path, copy: Path, kernel: str, which, change) -> Path:
        shutil.copytree(bundle, copy)
        path = next(p for p in sorted((copy / "launches").glob("*.json")) if read_manifest(p)["kernel"] == kernel)
        manifest = json.loads(path.read_text())
        region = next(r for r in manifest["regions"] if which(r))
        data = read_blob(copy, region["after"] or region["before"], region["size"])
        change(data)
        region["after"] = BundleWriter(copy).blob(data)
        path.write_text(json.dumps(manifest))
        return copy
    return alter
