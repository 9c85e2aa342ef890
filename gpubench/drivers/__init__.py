"""Mock kernel-driver interfaces that let a client's unmodified driver code run on the emulator."""
