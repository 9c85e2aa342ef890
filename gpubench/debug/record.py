"""`gpubench run --record DIR`: each dispatch saved so that it can be replayed and debugged alone.

One directory per dispatch (DIR/dispatch-N, DIR/gwK-dispatch-N in xdist worker K) holding
`manifest.json` (kernel name if known, target, program address, kernel descriptor and RSRC values,
user SGPRs, grid and workgroup size, statistics or the error it stopped with) and, per GPU mapping
the dispatch touched, its bytes before the dispatch (`*.before.bin`) and, if the dispatch wrote it,
after (`*.after.bin`). The mapping holding the program is always saved: it is the code.

A mapping is copied the first time the dispatch reads or writes it (AddressSpace.watch), so the
copy is what the dispatch saw; mappings it never touches are not saved.
"""
from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from gpubench.emu.launch import Dispatch, LaunchStats
from gpubench.emu.memory import Mapping

FORMAT = 1


class DispatchRecorder:
    """A launch hook saving each dispatch ``select`` accepts under ``directory``."""

    def __init__(self, directory: str | Path, prefix: str = "", select: Callable[[Dispatch], bool] | None = None):
        self.directory, self.prefix, self.select = Path(directory), prefix, select
        self.saved: list[Path] = []

    def __call__(self, dispatch: Dispatch, proceed: Callable[[], LaunchStats]) -> LaunchStats:
        if self.select is not None and not self.select(dispatch):
            return proceed()
        before: dict[int, tuple[Mapping, np.ndarray]] = {}
        written: set[int] = set()

        def first_access(mapping: Mapping, write: bool) -> None:
            if mapping.base not in before:
                before[mapping.base] = (mapping, mapping.data.copy())
            if write:
                written.add(mapping.base)
        code = dispatch.memory.find(dispatch.program)
        if code is not None:
            first_access(code, False)
        outcome: dict = {}
        dispatch.memory.watch(first_access)
        try:
            stats = proceed()
            outcome["stats"] = {"wave_instructions": stats.wave_instructions, "steps": stats.steps, "waves": stats.waves}
            return stats
        except Exception as error:  # saved with the dispatch, then the queue reports it as usual
            outcome["error"] = f"{type(error).__name__}: {error}"
            raise
        finally:
            dispatch.memory.unwatch()
            self.saved.append(self.save(dispatch, before, written, code.base if code else None, outcome))

    def save(self, dispatch: Dispatch, before: dict, written: set[int], code: int | None, outcome: dict) -> Path:
        out = self.directory / f"{self.prefix}dispatch-{dispatch.index}"
        out.mkdir(parents=True, exist_ok=True)
        mappings = []
        for base, (mapping, old) in sorted(before.items()):
            stem = f"mem-0x{base:x}"
            old.tofile(out / f"{stem}.before.bin")
            changed = base in written and not np.array_equal(old, mapping.data)
            if changed:
                mapping.data.tofile(out / f"{stem}.after.bin")
            mappings.append({"base": base, "size": mapping.size, "writable": mapping.writable, "name": mapping.name,
                             "before": f"{stem}.before.bin", "after": f"{stem}.after.bin" if changed else None,
                             "written": base in written})
        manifest = {"format": FORMAT, "index": dispatch.index, "kernel": dispatch.name, "target": dispatch.target,
                    "program": dispatch.program, "code_mapping": code,
                    "descriptor": dataclasses.asdict(dispatch.desc), "user_sgprs": list(dispatch.user_sgprs),
                    "grid": list(dispatch.grid), "block": list(dispatch.block), **outcome, "mappings": mappings}
        (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
        return out
