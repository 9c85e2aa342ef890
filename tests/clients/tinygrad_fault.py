"""Run by test_tinygrad.py in a fresh process: a kernel that stores to an unmapped address,
launched through tinygrad's own AMD driver on MOCKKFD; prints what tinygrad raised."""
import os
import sys
from pathlib import Path

os.environ["DEV"] = "MOCKKFD+AMD"
from gpubench.drivers import tinygrad_env, tinygrad_seam  # noqa: E402

tinygrad_env.configure(os.environ)
tinygrad_seam.install()
os.environ["HCQDEV_WAIT_TIMEOUT_MS"] = "20000"

from tinygrad import Device, dtypes  # noqa: E402
from tinygrad.device import TinyELF  # noqa: E402
from tinygrad.helpers import Target  # noqa: E402
from tinygrad.runtime.ops_amd import AMDProgram  # noqa: E402

device = Device["AMD"]
lib = Path(sys.argv[1]).read_bytes()
out = device.allocator.alloc(256 * 4)
program = AMDProgram(device, TinyELF(lib, "fault_oob", Target("AMD"), ((None, 0, dtypes.int64, ()),)))
try:
    program(out, global_size=(4, 1, 1), local_size=(64, 1, 1), vals=(1 << 30,), wait=True)
    print("no error")
except RuntimeError as error:
    print(f"caught: {error}")
print("process alive")
