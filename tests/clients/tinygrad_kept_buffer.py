"""Run by test_tinygrad.py in a fresh process: a program that holds a tinygrad buffer until it exits,
with a finalizer of its own made before the GPU was opened (as pytest and other libraries do), so
tinygrad frees the buffer from its finalizer at exit.

    python tinygrad_kept_buffer.py MOCKKFD+AMD|MOCKPCI+AMD
"""
import os
import sys
import weakref


class Early:
    pass


early = Early()
weakref.finalize(early, print, "early finalizer ran")
os.environ["DEV"] = sys.argv[1]
from gpubench.drivers import tinygrad_env, tinygrad_seam  # noqa: E402

tinygrad_env.configure(os.environ)
tinygrad_seam.install()
from tinygrad import Tensor  # noqa: E402

kept = (Tensor([1.0, 2.0, 3.0]) * 2).realize()
print(kept.tolist())
