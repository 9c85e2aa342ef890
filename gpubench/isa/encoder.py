"""Fields -> bytes: the inverse of the decoder's field extraction."""
from __future__ import annotations

from gpubench.isa.model import Format


class EncodeError(ValueError):
    pass


def encode(fmt: Format, fields: dict[str, int]) -> bytes:
    """Encode ``fields`` (by name) in ``fmt``; fixed bits come from the format; unset fields are 0."""
    word = 0
    for f in fmt.fixed_fields:
        word = f.put(word, f.value)
    for name, value in fields.items():
        fld = fmt.field(name)
        if fld is None:
            raise EncodeError(f"{fmt.name} has no field '{name}'")
        if fld.kind == "FixedBitField":
            continue
        if not 0 <= value <= fld.mask:
            raise EncodeError(f"value {value} does not fit {fmt.name}.{name} ({fld.width} bits)")
        word = fld.put(word, value)
    return word.to_bytes(fmt.size, "little")
