"""The SoC behind an emulated GPU's PCI BARs, as a driver that programs the hardware itself (AM)
sees it: the IP discovery binary at the top of VRAM (discovery.py, from the chip facts in
chips.py), and the register file behind the MMIO BAR whose per-register behaviour is a table
(registers.py). The KFD path never touches this: amdkfd's firmware and kernel driver did that
work before a KFD client starts."""
