"""The amdkfd ioctl argument layouts (Linux include/uapi/linux/kfd_ioctl.h; Debian's header is
version 1.11, the later fields and RUNTIME_ENABLE are from version 1.14) and their constants."""
from __future__ import annotations

import ctypes

u32, u64, s32 = ctypes.c_uint32, ctypes.c_uint64, ctypes.c_int32
VERSION = (1, 14)


def _struct(name: str, *fields: tuple) -> type[ctypes.Structure]:
    return type(name, (ctypes.Structure,), {"_fields_": list(fields)})


GetVersion = _struct("GetVersion", ("major_version", u32), ("minor_version", u32))
CreateQueue = _struct(
    "CreateQueue", ("ring_base_address", u64), ("write_pointer_address", u64), ("read_pointer_address", u64),
    ("doorbell_offset", u64), ("ring_size", u32), ("gpu_id", u32), ("queue_type", u32), ("queue_percentage", u32),
    ("queue_priority", u32), ("queue_id", u32), ("eop_buffer_address", u64), ("eop_buffer_size", u64),
    ("ctx_save_restore_address", u64), ("ctx_save_restore_size", u32), ("ctl_stack_size", u32),
    ("sdma_engine_id", u32), ("pad", u32))
DestroyQueue = _struct("DestroyQueue", ("queue_id", u32), ("pad", u32))
UpdateQueue = _struct("UpdateQueue", ("ring_base_address", u64), ("queue_id", u32), ("ring_size", u32),
                      ("queue_percentage", u32), ("queue_priority", u32))
SetMemoryPolicy = _struct("SetMemoryPolicy", ("alternate_aperture_base", u64), ("alternate_aperture_size", u64),
                          ("gpu_id", u32), ("default_policy", u32), ("alternate_policy", u32), ("pad", u32))
GetClockCounters = _struct("GetClockCounters", ("gpu_clock_counter", u64), ("cpu_clock_counter", u64),
                           ("system_clock_counter", u64), ("system_clock_freq", u64), ("gpu_id", u32), ("pad", u32))
ProcessDeviceApertures = _struct(
    "ProcessDeviceApertures", ("lds_base", u64), ("lds_limit", u64), ("scratch_base", u64), ("scratch_limit", u64),
    ("gpuvm_base", u64), ("gpuvm_limit", u64), ("gpu_id", u32), ("pad", u32))
MAX_APERTURE_NODES = 7  # NUM_OF_SUPPORTED_GPUS of the old GET_PROCESS_APERTURES
GetProcessApertures = _struct("GetProcessApertures", ("process_apertures", ProcessDeviceApertures * MAX_APERTURE_NODES),
                              ("num_of_nodes", u32), ("pad", u32))
GetProcessAperturesNew = _struct("GetProcessAperturesNew", ("kfd_process_device_apertures_ptr", u64),
                                 ("num_of_nodes", u32), ("pad", u32))
CreateEvent = _struct("CreateEvent", ("event_page_offset", u64), ("event_trigger_data", u32), ("event_type", u32),
                      ("auto_reset", u32), ("node_id", u32), ("event_id", u32), ("event_slot_index", u32))
EventId = _struct("EventId", ("event_id", u32), ("pad", u32))  # DESTROY_EVENT, SET_EVENT, RESET_EVENT
MemoryExceptionFailure = _struct("MemoryExceptionFailure", ("NotPresent", u32), ("ReadOnly", u32),
                                 ("NoExecute", u32), ("imprecise", u32))
MemoryExceptionData = _struct("MemoryExceptionData", ("failure", MemoryExceptionFailure), ("va", u64),
                              ("gpu_id", u32), ("ErrorType", u32))
HwExceptionData = _struct("HwExceptionData", ("reset_type", u32), ("reset_cause", u32), ("memory_lost", u32),
                          ("gpu_id", u32))
EventDataUnion = type("EventDataUnion", (ctypes.Union,), {"_fields_": [
    ("memory_exception_data", MemoryExceptionData), ("hw_exception_data", HwExceptionData)]})
EventData = _struct("EventData", ("data", EventDataUnion), ("kfd_event_data_ext", u64), ("event_id", u32),
                    ("pad", u32))
WaitEvents = _struct("WaitEvents", ("events_ptr", u64), ("num_events", u32), ("wait_for_all", u32),
                     ("timeout", u32), ("wait_result", u32))
SetScratchBackingVa = _struct("SetScratchBackingVa", ("va_addr", u64), ("gpu_id", u32), ("pad", u32))
SetTrapHandler = _struct("SetTrapHandler", ("tba_addr", u64), ("tma_addr", u64), ("gpu_id", u32), ("pad", u32))
AcquireVm = _struct("AcquireVm", ("drm_fd", u32), ("gpu_id", u32))
AllocMemoryOfGpu = _struct("AllocMemoryOfGpu", ("va_addr", u64), ("size", u64), ("handle", u64), ("mmap_offset", u64),
                           ("gpu_id", u32), ("flags", u32))
FreeMemoryOfGpu = _struct("FreeMemoryOfGpu", ("handle", u64))
MapMemoryToGpu = _struct("MapMemoryToGpu", ("handle", u64), ("device_ids_array_ptr", u64), ("n_devices", u32),
                         ("n_success", u32))  # UNMAP_MEMORY_FROM_GPU has the same layout
GetAvailableMemory = _struct("GetAvailableMemory", ("available", u64), ("gpu_id", u32), ("pad", u32))
RuntimeEnable = _struct("RuntimeEnable", ("r_debug", u64), ("mode_mask", u32), ("capabilities_mask", u32))

# ioctl number -> (name, argument layout)
IOCTLS = {
    0x01: ("GET_VERSION", GetVersion), 0x02: ("CREATE_QUEUE", CreateQueue), 0x03: ("DESTROY_QUEUE", DestroyQueue),
    0x04: ("SET_MEMORY_POLICY", SetMemoryPolicy), 0x05: ("GET_CLOCK_COUNTERS", GetClockCounters),
    0x06: ("GET_PROCESS_APERTURES", GetProcessApertures), 0x07: ("UPDATE_QUEUE", UpdateQueue),
    0x08: ("CREATE_EVENT", CreateEvent), 0x09: ("DESTROY_EVENT", EventId), 0x0A: ("SET_EVENT", EventId),
    0x0B: ("RESET_EVENT", EventId), 0x0C: ("WAIT_EVENTS", WaitEvents),
    0x11: ("SET_SCRATCH_BACKING_VA", SetScratchBackingVa), 0x13: ("SET_TRAP_HANDLER", SetTrapHandler),
    0x14: ("GET_PROCESS_APERTURES_NEW", GetProcessAperturesNew), 0x15: ("ACQUIRE_VM", AcquireVm),
    0x16: ("ALLOC_MEMORY_OF_GPU", AllocMemoryOfGpu), 0x17: ("FREE_MEMORY_OF_GPU", FreeMemoryOfGpu),
    0x18: ("MAP_MEMORY_TO_GPU", MapMemoryToGpu), 0x19: ("UNMAP_MEMORY_FROM_GPU", MapMemoryToGpu),
    0x23: ("AVAILABLE_MEMORY", GetAvailableMemory), 0x25: ("RUNTIME_ENABLE", RuntimeEnable),
}
IOCTL_BASE = ord("K")

# ALLOC_MEMORY_OF_GPU flags
ALLOC_VRAM, ALLOC_GTT, ALLOC_USERPTR, ALLOC_DOORBELL, ALLOC_MMIO_REMAP = 1 << 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4
ALLOC_WRITABLE, ALLOC_EXECUTABLE = 1 << 31, 1 << 30
ALLOC_DOMAINS = ALLOC_VRAM | ALLOC_GTT | ALLOC_USERPTR | ALLOC_DOORBELL | ALLOC_MMIO_REMAP
# queue types
QUEUE_COMPUTE, QUEUE_SDMA, QUEUE_COMPUTE_AQL, QUEUE_SDMA_XGMI = 0, 1, 2, 3
MIN_QUEUE_RING_SIZE, MAX_QUEUE_PERCENTAGE, MAX_QUEUE_PRIORITY = 1024, 100, 15
# events
EVENT_SIGNAL, EVENT_HW_EXCEPTION, EVENT_MEMORY = 0, 3, 8
EVENT_TYPES = {0, 1, 2, 3, 4, 5, 6, 7, 8}
SIGNAL_EVENT_LIMIT = 4096
UNSIGNALED_EVENT_SLOT = 2**64 - 1
WAIT_COMPLETE, WAIT_TIMEOUT = 0, 1
# mmap offsets of /dev/kfd: the type in bits 63:62, the GPU id in bits 61:46
MMAP_TYPE_SHIFT, MMAP_GPU_ID_SHIFT = 62, 46
MMAP_TYPE_DOORBELL, MMAP_TYPE_EVENTS = 3, 2


def ioctl_number(request: int) -> tuple[int, int, int]:
    """(type, number, argument size) of an ioctl request code."""
    return (request >> 8) & 0xFF, request & 0xFF, (request >> 16) & 0x3FFF
