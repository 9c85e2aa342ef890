"""MOCKPCI (issue 10): tinygrad's AM driver, unmodified, finds an emulated gfx1100, gfx1201, gfx942 or
gfx950 on PCI and boots it (AMDev) offline, through sysfs, config space, BAR mmaps, the register file and
gpubench's firmware seam; then tinygrad's AMD device computes on it through the compute and SDMA
queues AM starts, over the page tables AM writes. Run in a fresh process (pci_boot_client.py), since tinygrad reads
DEV when it is imported."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpubench.emu.soc import chips

CLIENT = Path(__file__).resolve().parent / "pci_boot_client.py"
PSP_BOOTLOADER_ORDER = [0x80000, 0x10000000, 0x10000, 0xB0000, 0xD0000, 0xC0000, 0xE0000, 0x20000]  # KDB ... SOSDRV
GFX_FW_RLC_G, GFX_FW_RS64_MEC, GFX_FW_SMU = 0x8, 0x59, 0x12
GFX_FW_CP_MEC, GFX_FW_REG_LIST, GFX_FW_SDMA0 = 0x4, 0x43, 0x9
GFX_FW_P2S_TABLE = 0x81
SMU_SET_DRIVER_DRAM_HIGH, SMU_SET_DRIVER_DRAM_LOW, SMU_ENABLE_ALL_FEATURES = 14, 15, 6


TARGETS = ["gfx1100", "gfx1201", "gfx942", "gfx950"]
CDNA = ("gfx942", "gfx950")


@pytest.fixture(scope="module", params=TARGETS)
def booted(request):
    return {**run_client(request.param, "boot"), "target": request.param}


def run_client(target: str, mode: str) -> dict:
    result = subprocess.run([sys.executable, str(CLIENT), target, mode], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_am_finds_one_gpu_and_takes_it_from_the_kernel_driver(booted):
    assert len(booted["devices"]) == 1 and booted["devices"][0].endswith(":03:00.0")
    assert not booted["driver_bound"] and booted["enabled"]
    assert booted["audio_present"] == []  # the HDMI audio function was removed
    assert booted["command"] & 0x4  # bus mastering on
    assert booted["link_control"] & 0x3 == 0  # ASPM off


def test_am_reads_the_chips_ip_versions_and_vram_from_discovery(booted):
    chip = chips.CHIPS[booted["target"]]
    assert booted["vram_size"] == chip.vram_bytes
    for block in chip.blocks:
        assert booted["ip_versions"][str(block.hw_id)] == list(block.version)


def test_am_boots_every_block_cold_and_marks_the_gpu_booted(booted):
    assert not booted["partial_boot"]
    assert booted["scratch_reg7"] == booted["version"]
    assert booted["boot_seconds"] < 2


def test_psp_loads_the_sos_components_in_bootloader_order_then_every_firmware(booted):
    assert booted["psp_components"] == PSP_BOOTLOADER_ORDER
    if booted["target"] in CDNA:  # gfx9: the MEC with its jump table, the RLC's register list, no autoload
        assert {GFX_FW_RLC_G, GFX_FW_CP_MEC, GFX_FW_REG_LIST, GFX_FW_SDMA0} <= set(booted["psp_firmware"])
        assert (GFX_FW_P2S_TABLE in booted["psp_firmware"]) == (booted["target"] == "gfx942")  # MP1 13.0.12: none
        assert not booted["rlc_autoloaded"]
    else:
        assert {GFX_FW_RLC_G, GFX_FW_RS64_MEC, GFX_FW_SMU} <= set(booted["psp_firmware"])
        assert booted["rlc_autoloaded"]
    if booted["target"] == "gfx942":  # MP0 13.0.6 sets its TMR at boot, and AM says so with an empty SETUP_TMR
        assert booted["psp_tmr"] == [0, 0]
    elif booted["target"] in ("gfx1100", "gfx950"):
        assert booted["psp_tmr"][1] > 0
    else:  # MP0 v14 (gfx1201) sets up its TMR at boot: AM sends no SETUP_TMR
        assert booted["psp_tmr"] is None


def test_smu_gets_the_driver_table_and_enables_its_features(booted):
    expected = [13, 14, 5] if booted["target"] in CDNA else [SMU_SET_DRIVER_DRAM_HIGH, SMU_SET_DRIVER_DRAM_LOW,
                                                              SMU_ENABLE_ALL_FEATURES]  # SMU 13.0.6/13.0.12's ids
    assert booted["smu_messages"][:3] == expected
    assert booted["smu_driver_table"] == booted["driver_table_mc"] and booted["smu_features"]


def test_register_writes_land_where_am_reads_them_back(booted):
    assert booted["ih_ring_base"] == booted["ih_ring_mc"]
    assert booted["mec_doorbell_range"] == [0, 0xF8]


def test_every_xcc_and_aid_is_an_instance_am_programs(booted):
    """MI300/MI350: eight XCCs with their own registers (each XCC's MEC doorbell range, reached through the
    indirect window past XCC 0), four live AIDs, whose doorbell routing AM writes through PCIE_INDEX2/DATA2."""
    if booted["target"] not in CDNA:
        assert booted["xccs"] == 1 and booted["aids"] == [0]
        return
    assert booted["xccs"] == 8 and booted["aids"] == [0, 1, 2, 3]
    assert booted["mec_doorbell_ranges"] == [[0x100 * x, 0x100 * x + 0xF8] for x in range(8)]
    assert booted["remote_aid_registers"] == [1, 2, 3]


@pytest.mark.parametrize("target", TARGETS)
def test_tinygrad_computes_on_the_gpu_am_booted(target):
    computed = run_client(target, "tensor")
    assert computed["arch"] == target  # times are benchmarks, not asserted (README: boot and first result)
    assert computed["first"] == [3.0, 5.0, 7.0]
    assert computed["product"] == [[float(sum(range(4 * r, 4 * r + 4)))] * 4 for r in range(4)]
    assert computed["total"] == (1 << 16) * ((1 << 16) - 1) // 2


@pytest.mark.parametrize("target", ["gfx1100", *(pytest.param(t, marks=pytest.mark.slow) for t in TARGETS[1:])])
def test_two_gpus_copy_to_each_other_through_their_bars(target):
    """--gpus 2: AM opens both GPUs; a copy is an SDMA copy by the GPU holding the data into the other's VRAM,
    which its page tables name by the other's BAR0 bus address (PCIe peer-to-peer, as AM maps a peer's buffer)."""
    peers = run_client(target, "peers")
    assert peers["devices"] == ["AMD", "AMD:1"] and peers["count"] == 2
    assert peers["there"] == [1.0, 2.0, 3.0, 4.0] and peers["back"] == [10.0, 20.0, 30.0, 40.0]
    assert (peers["peer_mapping_of_copy"], peers["peer_mapping_of_result"]) == (1, 0)


def test_gpubench_run_passes_a_slice_of_test_ops_on_mockpci_with_two_gpus(tmp_path):
    """The multi-device tests run (no skip for a missing second GPU) beside a slice of single-GPU ones."""
    report = tmp_path / "report.json"
    result = subprocess.run([sys.executable, "-m", "gpubench.cli", "run", "--dev", "MOCKPCI+AMD", "--gpus", "2",
                             "test_ops", "-q", "-k", "binary_float or matmul or reduce or multi_device",
                             "--json-report", str(report)], capture_output=True, text=True, timeout=900, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    summary = json.loads(report.read_text())
    assert summary["outcomes"]["passed"] >= 24 and summary["outcomes"]["failed"] == 0
    assert summary["outcomes"]["skipped"] == 0
    assert summary["emulator"]["dispatches"] > 0


@pytest.mark.parametrize("target, mode", [("gfx1100", "fault_valid"), ("gfx1201", "fault_read"),
                                          ("gfx942", "fault_read"), ("gfx950", "fault_valid"),
                                          ("gfx1100", "fault_ring"), ("gfx942", "fault_ring"),
                                          ("gfx1201", "fault_execute")])
def test_a_bad_pte_is_a_vm_fault_am_reads_from_the_ih_ring_with_the_address_and_the_process_lives_on(target, mode):
    """A PTE without VALID (or READABLE) under a buffer a kernel reads, under the compute queue's ring the
    CP fetches from, or without EXECUTABLE under the kernel's code: the IH ring gets a UTCL2 fault entry with
    the page (as gmc_v9..v12 decode it), the fault registers hold the address AM prints; AM recovers the
    device and the next computation runs."""
    faulted = run_client(target, mode)
    client = 27 if target in CDNA else 10  # SOC15_IH_CLIENTID_UTCL2 / SOC21_IH_CLIENTID_GFX, source UTCL2_FAULT (0)
    page = faulted["address"] >> 12
    assert [(e[0] & 0xFF, e[0] >> 8 & 0xFF, e[4], e[5]) for e in faulted["posted"]] == \
        [(client, 0, page & 0xFFFFFFFF, page >> 32 & 0xF)]
    assert f"{faulted['address']:#x}" in faulted["printed"] and "GCVM_L2_PROTECTION_FAULT_STATUS" in faulted["printed"], \
        f"AM printed {faulted['printed']!r}; tinygrad raised {faulted['error']!r} after {faulted['error_seconds']:.1f} s"
    assert ("'mapping_error': 1" in faulted["printed"]) == (mode in ("fault_valid", "fault_ring"))
    assert ("'permission_faults': 2" in faulted["printed"]) == (mode == "fault_read")  # a read the PTE forbids
    assert ("'permission_faults': 8" in faulted["printed"]) == (mode == "fault_execute")  # an instruction fetch
    assert faulted["error"] and faulted["fault_status_after"] == 0  # AM cleared the latched fault
    assert faulted["after"] == [3.0, 6.0]


@pytest.mark.parametrize("target", ["gfx1100", "gfx942"])
def test_ams_teardown_stops_its_queues_and_a_second_open_in_the_process_boots_partially(target):
    """AM's teardown (device_fini) dequeues the HQDs and disables the SDMA ring: the command processor runs no
    queue; a second AMDev on the GPU then finds AM's version in SCRATCH_REG7 and a clean teardown in
    SCRATCH_REG6, so it re-initialises only GFX and SDMA."""
    reopened = run_client(target, "reopen")
    assert reopened["computed"] == [2.0, 3.0]
    assert (reopened["queues_open"], reopened["queues_after_teardown"]) == (2, 0)  # compute and SDMA
    assert reopened["second_partial_boot"] and reopened["scratch_reg6"] == 1
