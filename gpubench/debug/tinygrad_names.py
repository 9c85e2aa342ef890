"""Kernel names for dispatches of tinygrad's AMD driver.

The code tinygrad puts in GPU memory carries no symbols (see gpubench.emu.symbols), so this wraps
the constructor of tinygrad's AMDProgram, which knows the name, to register the range of the code
allocation it made. The wrapper only reads what the constructor set; tinygrad runs unchanged.
Installed by the dispatch tools that select or label dispatches by name.
"""
from __future__ import annotations

import functools

from gpubench.emu import symbols


def install() -> None:
    from tinygrad.runtime import ops_amd
    init = ops_amd.AMDProgram.__init__
    if getattr(init, "_gpubench", False):
        return

    @functools.wraps(init)
    def named_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        symbols.register(self.lib_gpu.va_addr, self.lib_gpu.size, self.name)
    named_init._gpubench = True
    ops_amd.AMDProgram.__init__ = named_init
