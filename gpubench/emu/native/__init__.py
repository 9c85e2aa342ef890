"""The native execution engine: waves run as machine code (LLVM through llvmlite), not numpy.

`engine.run` runs a dispatch: a native loop (loop.py) calls one compiled handler per instruction
(threaded code), handlers made from the same pseudocode and operand rules as the reference engine's
(alu.py), scalar and GLOBAL memory checked natively (memory.py); what no native handler covers runs on
the reference engine for that one issue. build.py compiles and caches the code; layout.py is what
native code and Python agree on.
"""
