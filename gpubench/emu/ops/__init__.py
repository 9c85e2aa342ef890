"""Instruction handlers, one module per family. `handler_for(isa, inst)` builds the callable that
executes one decoded instruction for a set of waves standing at its PC (see executor.py).

A handler is `fn(ctx, waves)`: it reads and writes ctx.waves for the given wave indices and sets
their PC (most: the next instruction). Handlers are built once per distinct instruction and cached.
"""
from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable

import numpy as np

from gpubench.emu.context import Context
from gpubench.isa import corrections
from gpubench.isa.decoder import Instruction

Handler = Callable[[Context, np.ndarray], None]
FACTORIES: list[Callable[[Instruction], Handler | None]] = []


class Unsupported(NotImplementedError):
    """The emulator has no semantics for this instruction (yet): the dispatch stops with its name."""


class Deferred:
    """A handler built on its first call. Claiming an instruction is cheap and building its handler
    is not (binding operands, reading modes): the native engine claims every instruction it binds
    and runs most of them without the reference handler. An Unsupported the build raises reaches
    the dispatch when the instruction first runs, as an error from the handler would."""

    __slots__ = ("build", "handler")

    def __init__(self, build: Callable[[], Handler]):
        self.build, self.handler = build, None

    def built(self) -> Handler:
        if self.handler is None:
            self.handler = self.build()
        return self.handler

    def __call__(self, ctx: Context, waves: np.ndarray) -> None:
        self.built()(ctx, waves)


def factory(fn):
    """Register a handler factory: it returns a handler for the instructions it knows, else None."""
    FACTORIES.append(fn)
    return fn


def _load_factories() -> None:
    """Import every handler module once. The hand-written (manual) ones register first, so they win
    over pseudocode that is prose or covers less than the hardware does; `alu` comes last. A module
    imported earlier on its own (a test importing an exception class) keeps its place in that order."""
    if getattr(_load_factories, "done", False):
        return
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name not in ("alu", "operands"))
    modules = [f"{__name__}.{name}" for name in [*names, "alu"]]
    for module in modules:
        importlib.import_module(module)
    FACTORIES.sort(key=lambda make: modules.index(make.__module__) if make.__module__ in modules else -1)
    _load_factories.done = True


def handler_for(inst: Instruction) -> Handler:
    return claimed(inst)[1]


def claimed(inst: Instruction) -> tuple[Callable[[Instruction], Handler | None], Handler]:
    """The factory that claims ``inst`` and the handler it built (the native engine binds by factory);
    a CDNA VALU handler honours VGPR index mode (gpr_index.py)."""
    from gpubench.emu.ops import gpr_index
    make, handler = _claimed(inst)
    return make, gpr_index.relative(inst, handler, lambda moved: _claimed(moved)[1])


def _claimed(inst: Instruction) -> tuple[Callable[[Instruction], Handler | None], Handler]:
    _load_factories()
    for make in FACTORIES:
        handler = make(inst)
        if handler is not None:
            return make, handler
    from gpubench.emu import coverage, graphics_only
    rule = graphics_only.rule_for(coverage.family_of(inst.idef), inst.name)
    why = f": graphics-only ({rule.what}: {rule.reason})" if rule else ""
    raise Unsupported(f"no semantics for {inst.name} ({inst.fmt.name}){why}")


def semantics_source(inst: Instruction) -> str:
    """Where the emulator's semantics of ``inst`` come from, without running it: "pseudocode"
    (compiled from AMD's pseudocode: alu.py, and vopd.py's halves), "pseudocode+correction"
    (the same, with gpubench/isa/corrections.py's edits), "manual" (a hand-written handler, the VALU
    no-ops) or "unimplemented" (no factory claims it, or the one that does raises Unsupported). For
    `gpubench isa coverage` (gpubench/emu/coverage.py)."""
    _load_factories()
    from gpubench.emu.ops import alu
    for make in FACTORIES:
        try:
            handler = make(inst)
            if handler is None:
                continue
            if isinstance(handler, Deferred):
                handler.built()
        except Unsupported:
            return "unimplemented"
        if make.__module__ not in (alu.__name__, f"{__name__}.vopd"):
            return "manual"
        if inst.name.startswith(alu.VALU_NO_OPERATION) and make is alu.vector_alu:
            return "manual"
        return "pseudocode+correction" if corrections.of(inst.isa.arch, inst.name) else "pseudocode"
    return "unimplemented"
