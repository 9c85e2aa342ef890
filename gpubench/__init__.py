"""gpubench: an AMD GPU emulator and driver test bench."""

__version__ = "0.1.0"


def __getattr__(name):
    if name == "Device":  # imported on first use: the CLI's ISA tools don't need the emulator
        from gpubench.emu.device import Device
        return Device
    raise AttributeError(name)
