"""Run by test_pci_boot.py in a fresh process: tinygrad's AM driver finds the
emulated GPU on the PCI bus and boots it (AMDev), offline; prints what AM and the emulated
machine then say, as JSON. With `tensor`, tinygrad instead opens the device (AM's boot, then its
queues) and computes on it; prints the results and the time from device open to the first result.

With `fault_valid` or `fault_read`, it clears the VALID or READABLE bit of the PTE of a buffer's first page
(`fault_ring`: VALID of the compute ring's first page; `fault_execute`: EXECUTABLE of the page holding the
code of the kernel that reads the buffer, which has run once)
(through AM's own page tables), flushes the TLB as AM does, reads the buffer in a kernel and prints what
tinygrad raised, what AM's interrupt handler printed and what the IH posted; then it restores the PTE,
recovers the device (AM's recover) and computes again.

With `peers`, the machine has two GPUs: a tensor goes from AMD:0 to AMD:1 and back (the SDMA of the device
holding it copies into the other's VRAM, which its page tables reach through the other's BAR), with a kernel
on AMD:1 between; prints the values, the devices and where each GPU's mapping of the other's buffer lands.

With `reopen`, tinygrad computes, then AM's teardown runs (device_fini) and a second AMDev opens the same
GPU in the same process; prints which queues the command processor still runs and how the second boot went.

    python pci_boot_client.py TARGET boot|tensor|peers|fault_valid|fault_read|fault_ring|fault_execute|reopen
"""
import json
import os
import sys
import time
import urllib.request

os.environ["DEV"] = "MOCKPCI+AMD"
os.environ["GPUBENCH_TARGET"] = sys.argv[1]
os.environ["GPUBENCH_GPUS"] = "2" if sys.argv[2] == "peers" else "1"
if sys.argv[2].startswith("fault_"):
    # AM sees the fault when its wait polls the IH ring (PCIIface.sleep), within a second or two. The timeout only
    # bounds a real hang: at 10 s a cold native-handler build on a loaded CI machine outlasted it, AM read an
    # empty ring and printed nothing.
    os.environ["HCQDEV_WAIT_TIMEOUT_MS"] = "120000"
from gpubench.drivers import tinygrad_env, tinygrad_seam  # noqa: E402

tinygrad_env.configure(os.environ)
tinygrad_seam.install()


def offline(*args, **kwargs):
    raise AssertionError(f"AM went to the network: {args[0]!r}")


urllib.request.urlopen = offline

if sys.argv[2] == "tensor":
    from tinygrad import Device, Tensor

    started = time.perf_counter()
    device = Device["AMD"]
    first = (Tensor([1.0, 2.0, 3.0], device="AMD") * 2 + 1).tolist()
    first_seconds = time.perf_counter() - started
    product = (Tensor.arange(16).reshape(4, 4).float() @ Tensor.ones(4, 4)).tolist()
    print(json.dumps({"arch": device.arch, "first": first, "first_seconds": first_seconds, "product": product,
                      "total": Tensor.arange(1 << 16).sum().item()}))
    sys.exit(0)

if sys.argv[2] == "peers":
    from tinygrad import Device, Tensor

    from gpubench.drivers.kfd import machine

    def owner(gpu_index: int, tensor: Tensor) -> int | None:
        """Which GPU's VRAM the mapping of ``tensor``'s buffer in GPU ``gpu_index``'s address space is."""
        gpus = machine.current().pci.gpus
        mapping = gpus[gpu_index].cp.memory.find(tensor.uop.buffer._buf.va_addr)
        host = mapping.data.ctypes.data
        return next((i for i, g in enumerate(gpus) if 0 <= host - g.vram.array.ctypes.data < g.vram.size), None)

    values = Tensor([1.0, 2.0, 3.0, 4.0], device="AMD").realize()
    there = values.to("AMD:1").realize()
    computed = (there * 10).realize()
    back = computed.to("AMD").realize()
    print(json.dumps({"devices": [Device[d].device for d in ("AMD", "AMD:1")], "count": Device["AMD"].iface.count,
                      "there": there.tolist(), "back": back.tolist(),
                      "peer_mapping_of_copy": owner(0, there), "peer_mapping_of_result": owner(1, back)}))
    sys.exit(0)

if sys.argv[2].startswith("fault_"):
    import contextlib
    import io

    from tinygrad import Device, Tensor
    from tinygrad.runtime.autogen.am import am
    from tinygrad.runtime.support.memory import PageTableTraverseContext

    from gpubench.drivers.kfd import machine
    from gpubench.emu import launch

    device = Device["AMD"]
    adev = device.iface.dev_impl
    data = Tensor(list(range(4096)), dtype="float32").realize()
    address = data.uop.buffer._buf.va_addr
    if sys.argv[2] == "fault_ring":  # the compute queue's ring itself: the CP's fetch faults
        address = device.compute_queue.params[0]
    # the kernel runs once before its PTE breaks: compiled and bound then, the faulting run reaches its
    # fault at once (AM's hang check gives a wait 30 s whatever HCQDEV_WAIT_TIMEOUT_MS says; a cold
    # native build on a loaded CI machine outlasted it and AM found the IH ring still empty)
    programs = []
    launch.hooks.append(lambda dispatch, proceed: programs.append(dispatch.program) or proceed())
    (data + 1).tolist()
    launch.hooks.pop()
    if sys.argv[2] == "fault_execute":  # the kernel's code: the waves' instruction fetch faults
        address = programs[-1]
    cleared = {"fault_valid": am.AMDGPU_PTE_VALID, "fault_read": am.AMDGPU_PTE_READABLE,
               "fault_ring": am.AMDGPU_PTE_VALID, "fault_execute": am.AMDGPU_PTE_EXECUTABLE}[sys.argv[2]]
    context = PageTableTraverseContext(adev, adev.mm.root_page_table, address)
    _, table, index, _, _ = next(context.next(0x1000))
    original = table.entry(index)
    table.entries[index] = original & ~cleared
    adev.gmc.flush_tlb("GC", vmid=0)
    printed, started, error = io.StringIO(), time.perf_counter(), None
    with contextlib.redirect_stdout(printed):
        try:
            (data + 1).tolist()
        except RuntimeError as raised:
            error = str(raised)
    error_seconds = time.perf_counter() - started
    ih = machine.current().pci.gpus[0].soc.ih
    table.entries[index] = original
    adev.gmc.flush_tlb("GC", vmid=0)
    print(json.dumps({"address": address, "error": error, "error_seconds": error_seconds, "printed": printed.getvalue(),
                      "posted": ih.posted, "fault_status_after": adev.reg(adev.gmc.pf_status_reg("GC")).read(),
                      "after": (Tensor([1.0, 2.0]) * 3).tolist()}))
    sys.exit(0)

if sys.argv[2] == "reopen":
    from tinygrad import Device, Tensor
    from tinygrad.runtime.support.am.amdev import AMDev

    from gpubench.drivers.kfd import machine

    device = Device["AMD"]
    computed = (Tensor([1.0, 2.0]) + 1).tolist()
    cp = machine.current().pci.gpus[0].cp
    queues_open = len(cp.queues)
    device.iface.device_fini()
    queues_after_teardown = len(cp.queues)
    pci_device = device.iface.pci_dev
    os.close(pci_device.lock_fd)  # what the first user's exit would release
    started = time.perf_counter()
    second = AMDev(type(pci_device)("AM", pci_device.pcibus))
    print(json.dumps({"computed": computed, "queues_open": queues_open, "queues_after_teardown": queues_after_teardown,
                      "second_partial_boot": second.partial_boot, "second_seconds": time.perf_counter() - started,
                      "scratch_reg6": second.reg("regSCRATCH_REG6").read()}), flush=True)
    os._exit(0)  # the first device's buffers would be freed at exit through page tables the second boot rebuilt

from tinygrad.runtime.autogen.am import am  # noqa: E402
from tinygrad.runtime.support.am.amdev import AMDev  # noqa: E402
from tinygrad.runtime.support.system import System  # noqa: E402

from gpubench.drivers.kfd import machine  # noqa: E402

found = System.list_devices(0x1002, ((0xFFFF, (0x74A1, 0x744C, 0x7480, 0x7550, 0x7551, 0x7590, 0x75A0, 0x75A8)),))
device_class, address = found[0]
started = time.perf_counter()
pci_device = device_class("AM", address)
adev = AMDev(pci_device)
boot_seconds = time.perf_counter() - started
gpu = machine.current().pci.gpus[0]
soc = gpu.soc
print(json.dumps({
    "devices": [a for _, a in found],
    "boot_seconds": boot_seconds,
    "ip_versions": {am.hw_id_map[hwip]: list(v) for hwip, v in adev.ip_ver.items() if hwip in am.hw_id_map},
    "vram_size": adev.vram_size,
    "scratch_reg7": adev.reg("regSCRATCH_REG7").read(),
    "version": AMDev.Version,
    "partial_boot": adev.partial_boot,
    "command": pci_device.read_config(4, 2),
    "link_control": pci_device.read_config(0x64 + 0x10, 2),
    "driver_bound": gpu.driver is not None,
    "enabled": gpu.enabled,
    "audio_present": System.pci_scan_bus(0x1002, ((0xFFFF, (0xAB30,)),)),
    "psp_components": soc.psp.components,
    "psp_firmware": sorted(soc.psp.loaded),
    "psp_tmr": soc.psp.tmr and list(soc.psp.tmr),
    "smu_messages": [m for m, _ in soc.smu.messages],
    "smu_features": soc.smu.features_enabled,
    "smu_driver_table": soc.smu.driver_table,
    "driver_table_mc": adev.paddr2mc(adev.smu.driver_table_paddr),
    "rlc_autoloaded": hasattr(adev, "regRLC_RLCS_BOOTLOAD_STATUS")  # gfx9 has no RLC autoload
    and bool(adev.regRLC_RLCS_BOOTLOAD_STATUS.read_bitfields()["bootload_complete"]),
    "xccs": adev.gfx.xccs,
    "aids": adev.aids,
    "mec_doorbell_ranges": [[adev.regCP_MEC_DOORBELL_RANGE_LOWER.read(inst=x),
                             adev.regCP_MEC_DOORBELL_RANGE_UPPER.read(inst=x)] for x in range(adev.gfx.xccs)],
    "remote_aid_registers": sorted({aid for aid, _ in soc.nbio.remote}),
    "mec_doorbell_range": [adev.regCP_MEC_DOORBELL_RANGE_LOWER.read(), adev.regCP_MEC_DOORBELL_RANGE_UPPER.read()],
    "ih_ring_base": adev.regIH_RB_BASE.read() << 8,
    "ih_ring_mc": adev.paddr2mc(adev.ih.rings[0][0]),
}))
