"""ioctls with random requests and bytes: a few calls per case on a fresh MOCKKFD, each a known
ioctl (now and then an unknown one, or a known one with the wrong size or direction), its argument
either random bytes or its layout's fields drawn from what a hostile client would pass: the
client's own buffers and handles, read-only and PROT_NONE pages, unmapped ranges, 0, 2^63, 2^64 - 1.
The argument is passed by pointer (possibly a bad one) or as a buffer. The answer must be success
or an errno, as amdkfd gives.
"""
from __future__ import annotations

import ctypes
import mmap
import random
from dataclasses import dataclass

from gpubench.drivers.kfd import abi
from gpubench.emu import hostmem
from tests.drivers.kfd_client import GPU, Client
from tools.fuzzing.campaign import Campaign
from tools.fuzzing.outcome import Outcome, classify, ran

PAGE = 4096
PROT_NONE = 0  # mmap has no name for it
INTEGERS = (0, 1, 2, 3, 7, 8, 64, 100, 1024, 4096, 0xFFFF, 0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 1 << 32, 1 << 47,
            1 << 63, 2**64 - 1, 2**64 - PAGE)
PLACES = ("buffer", "buffer", "read_only", "no_access", "unmapped", "doorbells", "event_page")
KINDS_BY_NAME = (("gpu_id", "gpu"), ("device_ids", "gpu_array"), ("handle", "handle"), ("ptr", "address"),
                 ("addr", "address"), ("size", "size"), ("offset", "offset"))


@dataclass(frozen=True)
class Value:
    """A field's value, named by what it is; resolved in the worker's own client."""

    kind: str  # int, gpu, handle, address, size
    number: int = 0
    place: str = ""


@dataclass(frozen=True)
class Call:
    number: int
    size: int | None  # None: the layout's size
    direction: int
    fields: tuple[tuple[str, Value], ...]
    raw: bytes | None  # random bytes instead of fields
    by_pointer: Value | None  # the argument passed at this address (None: as a buffer)


def draw_value(rng: random.Random, name: str) -> Value:
    if name == "timeout":  # WAIT_EVENTS waits as long as it is told, as amdkfd does: a few ms here
        return Value("int", rng.choice((0, 1, 10)))
    if rng.random() < 0.15:
        return Value("int", rng.choice(INTEGERS) if rng.random() < 0.7 else rng.getrandbits(64))
    kind = next((kind for part, kind in KINDS_BY_NAME if part in name), "int")
    if kind in ("address", "gpu_array", "offset"):
        return Value(kind, rng.choice((0, 0, 8, PAGE - 4, rng.randrange(0, 64 * PAGE, 8))), rng.choice(PLACES))
    if kind in ("gpu", "handle"):
        return Value(kind, rng.choice((0, 0, 0, 1, 2)))
    if kind == "size":
        return Value("int", rng.choice((0, 1, 8, PAGE, 2 * PAGE, 1 << 20, 1 << 32, 1 << 63, 2**64 - PAGE)))
    return Value("int", rng.choice(INTEGERS) if rng.random() < 0.7 else rng.getrandbits(32))


GPU_ID, BUFFER, HANDLE = Value("gpu"), Value("address", 0, "buffer"), Value("handle")
# arguments a working client passes: a call starts from one of these now and then, a field or two changed
VALID = {
    0x02: {"ring_base_address": BUFFER, "ring_size": Value("int", 4096), "gpu_id": GPU_ID,
           "queue_percentage": Value("int", 100), "queue_priority": Value("int", 7),
           "read_pointer_address": Value("address", 8192, "buffer"),
           "write_pointer_address": Value("address", 8200, "buffer")},
    0x07: {"ring_base_address": BUFFER, "ring_size": Value("int", 4096), "queue_percentage": Value("int", 100)},
    0x08: {"event_page_offset": HANDLE, "event_type": Value("int", abi.EVENT_SIGNAL), "auto_reset": Value("int", 1)},
    0x0C: {"events_ptr": BUFFER, "num_events": Value("int", 1), "timeout": Value("int", 1)},
    0x16: {"va_addr": Value("address", 0, "unmapped"), "size": Value("int", 2 * PAGE), "gpu_id": GPU_ID,
           "flags": Value("int", abi.ALLOC_GTT | abi.ALLOC_WRITABLE)},
    0x17: {"handle": HANDLE},
    0x18: {"handle": HANDLE, "device_ids_array_ptr": Value("gpu_array", 0, "buffer"), "n_devices": Value("int", 1)},
    0x19: {"handle": HANDLE, "device_ids_array_ptr": Value("gpu_array", 0, "buffer"), "n_devices": Value("int", 1)},
}


def draw_call(rng: random.Random) -> Call:
    number = rng.choice(list(abi.IOCTLS)) if rng.random() < 0.9 else rng.randrange(256)
    layout = abi.IOCTLS.get(number, (None, abi.GetVersion))[1]
    size = None if rng.random() < 0.85 else rng.randrange(0, 0x4000)
    valid = VALID.get(number, {}) if rng.random() < 0.5 else {}
    fields = tuple((name, valid[name] if name in valid and rng.random() < 0.85 else draw_value(rng, name))
                   for name, *_ in layout._fields_)
    raw = rng.randbytes(ctypes.sizeof(layout)) if rng.random() < 0.15 else None
    pointer = Value("address", 0, rng.choice(PLACES)) if rng.random() < 0.3 else None
    return Call(number, size, rng.choice((3, 3, 3, 1, 2, 0)), fields, raw, pointer)


@dataclass(frozen=True)
class Case:
    calls: tuple[Call, ...]  # after ACQUIRE_VM and the client's own buffers


def make(rng: random.Random) -> Case:
    return Case(tuple(draw_call(rng) for _ in range(rng.randint(1, 6))))


def describe(case: Case) -> str:
    def show(call: Call) -> str:
        name = abi.IOCTLS.get(call.number, (f"ioctl 0x{call.number:x}",))[0]
        args = call.raw.hex() if call.raw is not None else ", ".join(f"{n}={v.kind}:{v.place}{v.number:#x}"
                                                                      for n, v in call.fields)
        where = f" at {call.by_pointer.place}" if call.by_pointer else ""
        return f"{name}(size={call.size}, dir={call.direction}{where}: {args})"
    return "; ".join(map(show, case.calls))


class Environment:
    def __init__(self, client: Client):
        self.client = client
        self.buffer, _ = client.alloc(16 * PAGE)
        self.read_only = hostmem.anonymous_map(0, PAGE, mmap.PROT_READ, mmap.MAP_PRIVATE)
        self.no_access = hostmem.anonymous_map(0, PAGE, PROT_NONE, mmap.MAP_PRIVATE)
        self.gpus = (ctypes.c_uint32 * 2)(GPU, GPU)
        page = client.driver.event_page
        self.places = {"buffer": self.buffer.va_addr, "read_only": self.read_only, "no_access": self.no_access,
                       "unmapped": self.buffer.va_addr + (1 << 40), "doorbells": 0,
                       "event_page": page.address if page is not None else 0}

    def resolve(self, value: Value) -> int:
        if value.kind == "gpu":
            return (GPU, GPU + 1, 0, 0xFFFFFFFF)[value.number]
        if value.kind == "handle":
            return (self.buffer.handle, self.buffer.handle + 1, 0)[value.number % 3]
        if value.kind == "gpu_array":
            return ctypes.addressof(self.gpus) if value.place == "buffer" else self.places[value.place] + value.number
        if value.kind in ("address", "offset"):
            return (self.places[value.place] + value.number) % 2**64
        return value.number

    def close(self) -> None:
        hostmem.unmap(self.read_only, PAGE)
        hostmem.unmap(self.no_access, PAGE)


def argument(env: Environment, call: Call):
    layout = abi.IOCTLS.get(call.number, (None, abi.GetVersion))[1]
    args = layout()
    if call.raw is not None:
        ctypes.memmove(ctypes.addressof(args), call.raw, len(call.raw))
    else:
        for name, value in call.fields:
            field_type = dict((n, t) for n, t, *_ in layout._fields_)[name]
            if issubclass(field_type, ctypes._SimpleCData):
                setattr(args, name, env.resolve(value) % (1 << (8 * ctypes.sizeof(field_type))))
    if call.by_pointer is None:
        return args
    address = env.resolve(call.by_pointer)
    if call.by_pointer.place == "buffer":  # a real argument in the client's memory
        ctypes.memmove(address, ctypes.addressof(args), ctypes.sizeof(args))
    return address


def run(case: Case) -> Outcome:
    client = Client()
    client.acquire()
    env = Environment(client)
    try:
        refused = None
        for call in case.calls:
            layout = abi.IOCTLS.get(call.number, (None, abi.GetVersion))[1]
            size = ctypes.sizeof(layout) if call.size is None else call.size
            request = (call.direction << 30) | (size << 16) | (abi.IOCTL_BASE << 8) | call.number
            try:
                client.driver.ioctl(request, argument(env, call))
            except OSError as error:  # the documented answer: an errno; the client goes on
                refused = refused or error
        return ran("all succeeded") if refused is None else classify(refused, (OSError,))
    finally:
        env.close()
        client.close()


CAMPAIGN = Campaign("ioctls", "ioctls with random requests and bytes", make, run, describe, (OSError,), timeout=60.0)
