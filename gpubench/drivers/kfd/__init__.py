"""MOCKKFD: an emulated /dev/kfd (the amdkfd ioctls), its sysfs topology and the DRM render nodes,
backed by emulated GPUs (gpubench.emu.gpu)."""
