"""The KFD sysfs topology (/sys/devices/virtual/kfd/kfd/topology) and the DRM device files a KFD
client reads (/sys/class/drm/renderD*/device/ip_discovery), for a machine of emulated GPUs.

Node 0 is the CPU (gpu_id 0), nodes 1..N the GPUs, as amdkfd numbers them. A GPU's properties are
those its product reports (the model table below); gfx_target_version comes from the target table.
"""
from __future__ import annotations

from dataclasses import dataclass

from gpubench.isa.targets import TARGETS

TOPOLOGY = "/sys/devices/virtual/kfd/kfd/topology"
FIRST_RENDER_MINOR = 128
GC_HWID, SDMA0_HWID, NBIF_HWID = 11, 42, 108  # ip_discovery hardware ids


@dataclass(frozen=True)
class Model:
    """What a product reports: shader layout, memory, PCI id and IP block versions."""

    product: str
    device_id: int
    simd_count: int
    array_count: int
    simd_arrays_per_engine: int
    cu_per_simd_array: int
    max_waves_per_simd: int
    lds_size_in_kb: int
    max_slots_scratch_cu: int
    num_xcc: int
    vram_bytes: int
    ip_versions: dict  # hardware id -> (major, minor, revision)
    caches: tuple  # (level, size in KiB, line bytes, CUs sharing one) per cache kind


MODELS = {
    "gfx1100": Model("Radeon RX 7900 XTX", 0x744C, 192, 12, 2, 8, 16, 64, 32, 1, 24 << 30,
                     {GC_HWID: (11, 0, 0), SDMA0_HWID: (6, 0, 0), NBIF_HWID: (4, 3, 0)},
                     ((1, 32, 128, 1), (2, 6144, 128, 96), (3, 98304, 64, 96))),
    "gfx1201": Model("Radeon RX 9070 XT", 0x7550, 128, 8, 2, 8, 16, 64, 32, 1, 16 << 30,
                     {GC_HWID: (12, 0, 1), SDMA0_HWID: (7, 0, 1), NBIF_HWID: (6, 3, 1)},
                     ((1, 32, 128, 1), (2, 8192, 128, 64), (3, 65536, 64, 64))),
    # MI300X: eight XCCs, so tinygrad drives it through an AQL queue; 304 CUs, 38 per XCC
    "gfx942": Model("Instinct MI300X", 0x74A1, 1216, 32, 1, 10, 8, 64, 32, 8, 192 << 30,
                    {GC_HWID: (9, 4, 3), SDMA0_HWID: (4, 4, 2), NBIF_HWID: (7, 9, 0)},
                    ((1, 32, 128, 1), (2, 4096, 128, 38), (3, 262144, 64, 304))),
    # MI355X: eight XCCs of 32 CUs, 160 KiB of LDS per CU
    "gfx950": Model("Instinct MI355X", 0x75A3, 1024, 32, 1, 8, 8, 160, 32, 8, 288 << 30,
                    {GC_HWID: (9, 5, 0), SDMA0_HWID: (4, 4, 5), NBIF_HWID: (7, 9, 1)},
                    ((1, 32, 128, 1), (2, 4096, 128, 32), (3, 262144, 64, 256))),
}


def gpu_id(node: int) -> int:
    return 0x4000 + node  # any non-zero id unique on the machine; amdkfd derives it from a hash


def render_minor(gpu_index: int) -> int:
    return FIRST_RENDER_MINOR + gpu_index


def gpu_properties(target: str, gpu_index: int) -> dict[str, int]:
    model, wave_size = MODELS[target], min(TARGETS[target].wave_sizes)
    return {
        "cpu_cores_count": 0, "simd_count": model.simd_count, "mem_banks_count": 1, "caches_count": len(model.caches),
        "io_links_count": 1, "p2p_links_count": 0, "cpu_core_id_base": 0, "simd_id_base": 0x80000000 + 0x100 * gpu_index,
        "max_waves_per_simd": model.max_waves_per_simd, "lds_size_in_kb": model.lds_size_in_kb, "gds_size_in_kb": 0,
        "num_gws": 64, "wave_front_size": wave_size, "array_count": model.array_count,
        "simd_arrays_per_engine": model.simd_arrays_per_engine, "cu_per_simd_array": model.cu_per_simd_array,
        "simd_per_cu": 2, "max_slots_scratch_cu": model.max_slots_scratch_cu, "gfx_target_version": TARGETS[target].gfx_target_version,
        "vendor_id": 0x1002, "device_id": model.device_id, "location_id": 0x300 + 0x100 * gpu_index, "domain": 0,
        "drm_render_minor": render_minor(gpu_index), "hive_id": 0, "num_sdma_engines": 2, "num_sdma_xgmi_engines": 0,
        "num_sdma_queues_per_engine": 6, "num_cp_queues": 8, "max_engine_clk_fcompute": 2500, "local_mem_size": 0,
        "fw_version": 2, "capability": 0, "debug_prop": 0, "sdma_fw_version": 2, "unique_id": 0x1000 + gpu_index,
        "num_xcc": model.num_xcc, "max_engine_clk_ccompute": 2000,
    }


CPU_PROPERTIES = {"cpu_cores_count": 2, "simd_count": 0, "mem_banks_count": 1, "caches_count": 0, "io_links_count": 0,
                  "p2p_links_count": 0, "cpu_core_id_base": 0, "simd_id_base": 0, "max_waves_per_simd": 0,
                  "lds_size_in_kb": 0, "gds_size_in_kb": 0, "wave_front_size": 0, "array_count": 0,
                  "simd_arrays_per_engine": 0, "cu_per_simd_array": 0, "simd_per_cu": 0, "max_slots_scratch_cu": 0,
                  "gfx_target_version": 0, "vendor_id": 0, "device_id": 0, "location_id": 0, "domain": 0,
                  "drm_render_minor": 0, "hive_id": 0, "num_sdma_engines": 0, "num_sdma_xgmi_engines": 0,
                  "num_cp_queues": 0, "max_engine_clk_fcompute": 0, "local_mem_size": 0, "fw_version": 0,
                  "capability": 0, "debug_prop": 0, "sdma_fw_version": 0, "unique_id": 0, "num_xcc": 0,
                  "max_engine_clk_ccompute": 3000}


def model_cus(target: str) -> int:
    model = MODELS[target]
    return model.simd_count // 2


def _properties_text(values: dict[str, int]) -> str:
    return "".join(f"{name} {value}\n" for name, value in values.items())


def sysfs_files(targets: list[str]) -> dict[str, str]:
    """Every file of the topology and of the render nodes' ip_discovery, path -> contents."""
    files = {f"{TOPOLOGY}/generation_id": "1\n",
             f"{TOPOLOGY}/system_properties": "platform_oem 0\nplatform_id 0\nplatform_rev 0\n"}
    nodes = [("cpu", CPU_PROPERTIES, 0)] + [
        (target, gpu_properties(target, i), gpu_id(i + 1)) for i, target in enumerate(targets)]
    for node, (name, properties, node_gpu_id) in enumerate(nodes):
        base = f"{TOPOLOGY}/nodes/{node}"
        files[f"{base}/gpu_id"] = f"{node_gpu_id}\n"
        files[f"{base}/name"] = f"{name}\n"
        files[f"{base}/properties"] = _properties_text(properties)
        size = MODELS[name].vram_bytes if name in MODELS else 32 << 30
        files[f"{base}/mem_banks/0/properties"] = _properties_text(
            {"heap_type": 1 if name in MODELS else 0, "size_in_bytes": size, "flags": 0, "width": 64, "mem_clk_max": 1250})
        for index, (level, size_kb, line, shared) in enumerate(MODELS[name].caches if name in MODELS else ()):
            files[f"{base}/caches/{index}/properties"] = _properties_text(
                {"processor_id_low": properties["simd_id_base"], "level": level, "size": size_kb, "cache_line_size": line,
                 "cache_lines_per_tag": 1, "association": 16, "latency": 0, "type": 1})
            files[f"{base}/caches/{index}/sibling_map"] = ",".join(["1"] * shared + ["0"] * (model_cus(name) - shared)) + "\n"
        if node:
            files[f"{base}/io_links/0/properties"] = _properties_text(
                {"type": 2, "version_major": 0, "version_minor": 0, "node_from": node, "node_to": 0, "weight": 20,
                 "min_latency": 0, "max_latency": 0, "min_bandwidth": 312, "max_bandwidth": 64000,
                 "recommended_transfer_size": 0, "flags": 1})
            device = f"/sys/class/drm/renderD{render_minor(node - 1)}/device/ip_discovery/die/0"
            for hwid, version in MODELS[name].ip_versions.items():
                for part, value in zip(("major", "minor", "revision"), version):
                    files[f"{device}/{hwid}/0/{part}"] = f"{value}\n"
    return files
