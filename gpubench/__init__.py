"""gpubench: an AMD GPU emulator and driver test bench."""

__version__ = "0.1.0"
