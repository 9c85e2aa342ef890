"""Fuzzing campaigns: hostile input (instructions, kernels, memory addresses, PM4/SDMA/AQL streams,
ioctls) fed to the emulator and MOCKKFD, each case in a worker process that may crash or hang
without stopping the campaign, and every case's outcome classified (outcome.py).

A campaign is deterministic by seed: case ``i`` of a seed is always the same input, whatever the
number of workers, so a reproducer is ``python tools/fuzz.py CAMPAIGN --seed S --case I``.
"""
