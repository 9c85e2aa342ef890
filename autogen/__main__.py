"""`python -m autogen`: regenerate gpubench/isa/<arch>/ and the target table from the spec.

`--check` regenerates in memory and fails if any committed file differs (CI runs it).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mako.lookup import TemplateLookup

from autogen.spec import ARCHES, HERE, load_arch, load_yaml, spec_dir

ISA_DIR = HERE.parent / "gpubench" / "isa"
LOOKUP = TemplateLookup(directories=[str(HERE / "templates")], strict_undefined=True)


def render(template: str, **values) -> str:
    return LOOKUP.get_template(template).render(**values)


def allowed_by_format(spec: dict) -> dict[str, set[str]]:
    """Opcode names each format allows; VOPD's opx/opy fields carry no list: every VOPD opcode."""
    result = {}
    for name, fmt in spec["formats"].items():
        names = set()
        for fld in fmt["fields"]:
            if fld["kind"] == "EnumBitField":
                names.update(fld.get("allowed") or spec["enums"][fld["enum"]])
        result[name] = names
    return result


def arch_files(arch: str, spec: dict) -> dict[Path, str]:
    source = f"{arch}.json (AMD ISA spec data) and autogen/fixups/{arch}.yaml"
    values = dict(arch=arch, source=source, covers=spec["covers"], formats=spec["formats"],
                  allowed=allowed_by_format(spec), enums=spec["enums"], instructions=spec["instructions"])
    out = ISA_DIR / arch
    return {out / "__init__.py": render("arch_init.py.mako", **values),
            out / "formats.py": render("formats.py.mako", **values),
            out / "enums.py": render("enums.py.mako", **values),
            out / "instructions.py": render("instructions.py.mako", **values),
            out / "pseudocode.py": render("pseudocode.py.mako", **values)}


def all_files(directory: Path) -> dict[Path, str]:
    files = {}
    for arch in ARCHES:
        files.update(arch_files(arch, load_arch(arch, directory)))
    files[ISA_DIR / "targets.py"] = render("targets.py.mako", source="autogen/targets.yaml",
                                            targets=load_yaml(HERE / "targets.yaml")["targets"])
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m autogen", description=__doc__)
    parser.add_argument("--spec-dir", help="folder with rdna3.json, rdna4.json, cdna.json "
                        "(default: $GPUBENCH_ISA_SPEC or ../shared/isa-spec)")
    parser.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    args = parser.parse_args(argv)
    directory = spec_dir(args.spec_dir)
    if not (directory / "rdna3.json").exists():
        print(f"autogen: no spec data in {directory} (set --spec-dir or GPUBENCH_ISA_SPEC)", file=sys.stderr)
        return 2
    stale = []
    for path, text in all_files(directory).items():
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(path)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for path in stale:
        print(f"autogen: {path.relative_to(HERE.parent)} differs from what the generator writes", file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
