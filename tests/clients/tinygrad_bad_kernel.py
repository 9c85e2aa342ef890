"""Run by test_tinygrad.py in a fresh process: a kernel that stores to an unmapped address
(fault_oob) or never ends (hang_loop), launched through tinygrad's own AMD driver on MOCKKFD;
prints what tinygrad raised.

    python tinygrad_bad_kernel.py fault_oob|hang_loop KERNELS_DIR
"""
import os
import sys
from pathlib import Path

os.environ["DEV"] = "MOCKKFD+AMD"
from gpubench.drivers import tinygrad_env, tinygrad_seam  # noqa: E402

tinygrad_env.configure(os.environ)
tinygrad_seam.install()
os.environ["HCQDEV_WAIT_TIMEOUT_MS"] = "20000"
os.environ["GPUBENCH_WATCHDOG_SECONDS"] = "2"

from tinygrad import Device, dtypes  # noqa: E402
from tinygrad.device import TinyELF  # noqa: E402
from tinygrad.helpers import Target  # noqa: E402
from tinygrad.runtime.ops_amd import AMDProgram  # noqa: E402

kernel, kernels = sys.argv[1], Path(sys.argv[2])
device = Device["AMD"]
lib = (kernels / f"{kernel}-gfx1100.hsaco").read_bytes()
out, flag = device.allocator.alloc(256 * 4), device.allocator.alloc(4096)
try:
    if kernel == "fault_oob":
        program = AMDProgram(device, TinyELF(lib, kernel, Target("AMD"), ((None, 0, dtypes.int64, ()),)))
        program(out, global_size=(4, 1, 1), local_size=(64, 1, 1), vals=(1 << 30,), wait=True)
    else:
        program = AMDProgram(device, TinyELF(lib, kernel, Target("AMD"), ()))
        program(flag, out, global_size=(4, 1, 1), local_size=(64, 1, 1), wait=True)
    print("no error")
except RuntimeError as error:
    print(f"caught: {error}")
print("process alive")
