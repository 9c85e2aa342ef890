"""MOCKPCI: the emulated GPUs as PCI devices that a userspace driver (tinygrad's AM) takes over.

What AM touches, in order, and what answers it here:

1. Probe (tinygrad System.pci_scan_bus / PCIDevice): lists /sys/bus/pci/devices, reads each
   function's vendor and device; opens `enable`, unbinds the bound kernel driver through
   `driver/unbind`, removes sibling functions (`remove`, the HDMI audio function), writes `enable`,
   opens `config` (config space: ASPM in the PCIe capability's link control is cleared, bus
   mastering set in COMMAND), reads `resource` (BAR addresses and sizes) and mmaps `resource0`
   (VRAM), `resource2` (doorbells) and `resource5` (registers). -> bus.py, device.py, config.py.
2. Discovery: reads RCC_CONFIG_MEMSIZE (fixed register 0xDE3) for the VRAM size, then the IP
   discovery binary at VRAM top - 64 KiB: IP versions, register bases, GC table.
   -> gpubench/emu/soc/discovery.py, chips.py.
3. Software init: the memory manager (page tables in VRAM), then firmware: AMFirmware asks
   tinygrad's `fetch_fw` for each linux-firmware file by name and sha256 (PSP sOS, SMU, SDMA, CP
   MEC (and PFP/ME on gfx12), IMU, RLC). That one function, bound in tinygrad's am/amdev.py, is the
   firmware seam: gpubench's tinygrad seam puts firmware.py's lookup in its place (real files by
   hash from GPUBENCH_FIRMWARE or /lib/firmware/amdgpu, else the emulator's stand-in images,
   gpubench/emu/soc/firmware.py); no network, and every line of AM that programs the hardware
   runs unchanged.
4. Hardware init, all through MMIO registers (BAR5): NBIO (doorbell aperture, straps), GMC/MMHUB
   (system aperture, VM context 0 on the page tables, invalidation engine 17 for TLB flushes), IH
   (two interrupt rings in VRAM), PSP (bootloader components, sOS, KM ring, LOAD_IP_FW of every
   image, SETUP_TMR, LOAD_TOC, AUTOLOAD_RLC), SMU (driver table, features, DPM clock levels), then
   GFX (RLC autoload status, GC hub, MEC program counters, HQDs written from MQDs through
   GRBM_GFX_CNTL banks) and SDMA (ring registers, doorbells), clock gating (RLC safe mode).
   -> the register file, gpubench/emu/soc/registers.py, with each block's behaviour in psp.py,
   smu.py, gmc.py, gfx.py, sdma.py, nbio.py; a started HQD or SDMA ring becomes a queue of
   gpubench's command processors (compute.py), and every GC TLB invalidation rebuilds the GPU's
   translations from the page tables AM wrote in VRAM (mmu.py).
5. System memory: host buffers are anonymous mmaps whose "physical" addresses AM reads from
   /proc/self/pagemap and writes into GPU page tables. -> pagemap.py: each page the client asks
   about gets a frame of the emulated machine's physical address space, remembered so the GPU can
   reach the page through it.
6. Several GPUs (GPUBENCH_GPUS, `gpubench run --gpus N`): each is a PCI function of its own; AM maps a
   peer's VRAM buffer into a GPU's page tables as system pages at the peer's BAR0 bus address plus the
   buffer's VRAM offset, and copies with the SDMA of the GPU holding the data. -> bus.py resolves bus
   addresses in a GPU's VRAM or doorbell BAR to that memory, so the access reaches the peer's VRAM.

How MMIO reaches the register file: on hardware every load and store to BAR5 is a bus cycle the
device answers; in a process they would be plain memory accesses that nothing sees. The seam
(gpubench/drivers/tinygrad_seam.py) gives tinygrad's MMIOInterface, over an address range where
a register BAR is mapped (mmio.py), a view whose reads and writes go to the register file, one
dword at a time and in program order, so a read returns what the hardware would compute and a
write takes effect before the next access (banked registers, index/data pairs, mailboxes).
"""
