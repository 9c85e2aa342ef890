"""Reading and writing through places: views, bit slices, array elements and lane bits, on whole arrays.

The methods mirror ``places.py`` of the evaluator (a write through ``D0[31 : 16].f16`` is a
read-modify-write of D0's bits) and are mixed into the Compiler, whose state (emitter, ops, scopes,
ports, masks) they use.
"""
from __future__ import annotations

from gpubench.compiler.backend import operands as od
from gpubench.compiler.backend import render
from gpubench.compiler.backend.operands import Arr, Const, Operand, Pow2
from gpubench.compiler.backend.ops import FALSE
from gpubench.compiler.backend.ports import (
    FLAGS,
    NOT_MODELLED_STATE,
    RECORD_FIELDS,
    REGISTERS,
    field_port,
)
from gpubench.compiler.backend.scope import (
    ArrayVar,
    BitsPlace,
    Closure,
    ElementPlace,
    LaneBitPlace,
    Scope,
    SourceArray,
    ValuePlace,
    Var,
    VarPlace,
)
from gpubench.compiler.pcode import ir
from gpubench.compiler.pcode import values as ref
from gpubench.compiler.pcode.dtypes import I64, U1, DataType
from gpubench.compiler.pcode.evaluator import ALIASES, SOURCE_ARRAYS
from gpubench.compiler.pcode.values import Value


class PlaceCompiler:
    """The place half of the Compiler (see codegen.py)."""

    def write(self, place: object, pattern: Operand, min_width: int, span: tuple[int, int] | None) -> None:
        """Store a bit pattern (typed b<place width>) through a place, as places.py does. ``span``: the
        bits of the place that are written on every lane of the mask; None when not known statically."""
        match place:
            case VarPlace(var):
                if var.growable and min_width > var.dtype.bits:
                    self._grow(var, min_width)
                resized = self.ops.bits(pattern, var.dtype.bits)
                self.assign_var(var, self.ops.from_bits(resized, var.dtype), span)
            case BitsPlace():
                self._write_bits(place, pattern, span)
            case ElementPlace(array, index):
                saved = self.mask
                for k, element in enumerate(array.elements):
                    hit = self.ops.compare("==", index, Const(Value(None, k)))
                    self.mask = self._and(saved, hit)
                    if self.mask != FALSE:
                        self.assign_var(element, self.ops.from_bits(pattern, element.dtype), None)
                self.mask = saved
            case LaneBitPlace(var):
                self.assign_var(var, self.ops.convert(pattern, U1), (0, 1))
            case _:
                raise self.unsupported("assignment to a computed value")

    def _write_bits(self, place: BitsPlace, pattern: Operand, span: tuple[int, int] | None) -> None:
        """Read-modify-write of the parent's bits (places.BitsPlace.write); a local parent may grow."""
        width = place.dtype.bits
        if place.reversed:
            pattern = self._reverse(pattern, width)
        parent, lo = place.parent, place.lo
        if isinstance(lo, int):
            grows = isinstance(parent, VarPlace) and parent.var.growable
            total = max(parent.dtype.bits, lo + width) if grows else parent.dtype.bits
            outer = (lo + span[0], lo + span[1]) if span is not None else None
            if lo == 0 and width >= total:
                self.write(parent, self.ops.bits(pattern, total), total, outer)
                return
        else:
            total, outer = parent.dtype.bits, None
        t = DataType("b", total)
        old = self.ops.bits(self._read(parent, note=False), total)
        new = self.ops.bits(pattern, total)
        if isinstance(lo, int):
            keep = Const(ref.typed(t, ~(((1 << width) - 1) << lo)))
            kept = old if isinstance(old, Const) and not old.value.data else self.ops.arithmetic("&", old, keep)
            kept = self.ops.bits(kept, total)
            moved = self._shift_left_raw(new, lo, t)
        else:
            count = self._count_code(lo, t)
            field = self.ops.code(Const(ref.typed(t, (1 << width) - 1)), t)
            kept = self.ops.arr(f"{self.ops.code(old, t)} & ~({field} << {count})", t)
            moved = self.ops.arr(f"{self.ops.code(new, t)} << {count}", t)
        self.write(parent, self._or_bits(kept, moved, t), (lo if isinstance(lo, int) else 0) + width, outer)

    def _or_bits(self, a: Operand, b: Operand, t: DataType) -> Operand:
        if isinstance(a, Const) and not a.value.data:
            return b if b.dtype == t else self.ops.bits(b, t.bits)
        if isinstance(b, Const) and not b.value.data:
            return a
        if isinstance(a, Const) and isinstance(b, Const):
            return Const(ref.typed(t, a.value.data | b.value.data))
        return self.ops.arr(f"{self.ops.code(a, t)} | {self.ops.code(b, t)}", t)

    def _shift_left_raw(self, pattern: Operand, count: int, t: DataType) -> Operand:
        """A pattern moved up inside a b<t.bits> container (bits past the top fall off)."""
        if isinstance(pattern, Const):
            return Const(ref.typed(t, pattern.value.data << count))
        if count == 0:
            return pattern
        if od.is_object(t):
            return self.ops.arr(f"({pattern.code} << {count}) & {t.mask}", t)
        box = od.container(t)
        code = f"{pattern.code} << {self.ops._k(count, box)}"
        if od.is_native(t) or od.is_bool(t):
            return self.ops.arr(code, t)
        return self.ops.arr(f"({code}) & {self.ops._k(t.mask, box)}", t)

    def _count_code(self, count: Operand, t: DataType) -> str:
        if od.is_object(t):
            return f"np.minimum({count.code}, {t.bits}).astype(object)"
        return self.ops._shift_count(count, DataType("u", od.container_bits(t)))

    def _grow(self, var: Var, width: int) -> None:
        """A local written past its end grows (Reg.grow): same bits, wider type."""
        kind = var.dtype.kind if not var.dtype.is_float else "b"
        wider = DataType(kind, width)
        pattern = self.ops.bits(var.value, var.dtype.bits)
        var.value = self.ops.from_bits(self.ops.bits(pattern, width), wider)
        var.dtype = wider

    def place(self, expr: ir.Expr, scope: Scope, create: bool = False) -> object:
        located = self.locate(expr, scope, create)
        if isinstance(located, (ArrayVar, Closure, SourceArray)):
            raise self.unsupported(f"{render.expr(expr)} is a {type(located).__name__}, not a value")
        return located

    def locate(self, expr: ir.Expr, scope: Scope, create: bool = False) -> object:
        """The place (or array, lambda, source array) an expression names (evaluator.locate)."""
        match expr:
            case ir.Name(ident):
                return self._locate_name(ident, scope, create)
            case ir.View(base, dtype):
                located = self.locate(base, scope, create)
                if isinstance(located, ValuePlace):
                    return ValuePlace(self.ops.reinterpret(located.value, dtype))
                return BitsPlace(self._as_place(located, base), 0, dtype)
            case ir.Field(ir.Name(record), name):
                if name not in RECORD_FIELDS.get(record, ()):
                    raise self.unsupported(f"{record}.{name} is not state the backend knows")
                return VarPlace(self.port(field_port(record, name), lane_bit=False))
            case ir.Index(base, ir.Name("laneId") | ir.Name("laneID")) if self._lane_mask_name(base, scope):
                return LaneBitPlace(self.port(self._lane_mask_name(base, scope), lane_bit=True))
            case ir.Index(base, index):
                located = self.locate(base, scope, create)
                i = self.value(index, scope)
                if isinstance(located, ArrayVar):
                    if isinstance(i, Const):
                        return VarPlace(located.elements[od.int_value_of(i.value)])
                    return ElementPlace(located, i)
                if isinstance(located, SourceArray):
                    if not isinstance(i, Const):
                        raise self.unsupported("S[i] with an index only known at run time")
                    return self._locate_name(located.names[od.int_value_of(i.value)], scope, create)
                return BitsPlace(self._as_place(located, base), self._index(i), DataType("u", 1))
            case ir.Slice(base, hi, lo):
                place = self._as_place(self.locate(base, scope, create), base)
                h, low = self._constant_int(hi, scope), self._constant_int(lo, scope)
                if h >= low:
                    return BitsPlace(place, low, DataType("b", h - low + 1))
                return BitsPlace(place, h, DataType("b", low - h + 1), reversed=True)
            case ir.PartSelect(base, lo, width):
                place = self._as_place(self.locate(base, scope, create), base)
                w = self._constant_int(width, scope)
                return BitsPlace(place, self._index(self.value(lo, scope)), DataType("b", w))
            case _:
                return ValuePlace(self.value(expr, scope))

    def _lane_mask_name(self, base: ir.Expr, scope: Scope) -> str | None:
        """``X[laneId]`` or ``X.u64[laneId]`` where X is a wave-state register (not a local)."""
        while isinstance(base, ir.View):
            base = base.base
        if isinstance(base, ir.Name) and scope.find(base.ident) is None and base.ident in REGISTERS:
            return base.ident
        return None

    def _locate_name(self, ident: str, scope: Scope, create: bool) -> object:
        found = scope.find(ident)
        if found is None and ident not in ALIASES and ident not in SOURCE_ARRAYS and create and \
                ident not in REGISTERS | FLAGS and ident not in NOT_MODELLED_STATE:
            var = Var(ident, DataType("b", 1), Const(ref.typed(DataType("b", 1), 0)))  # grows when written
            scope.bind(ident, var)
            return VarPlace(var)
        obj = self.lookup(ident, scope)
        if isinstance(obj, ir.Expr):
            return self.locate(obj, scope, create)
        if isinstance(obj, Var):
            return ValuePlace(obj.value) if obj.dtype is None else VarPlace(obj)
        return obj

    def _as_place(self, located: object, expr: ir.Expr) -> object:
        if isinstance(located, (ArrayVar, Closure, SourceArray)):
            raise self.unsupported(f"{render.expr(expr)} is a {type(located).__name__}; it has no bits")
        return located

    def _index(self, i: Operand) -> int | Operand:
        if isinstance(i, Const):
            return od.int_value_of(i.value)
        if isinstance(i, Pow2) or od.is_real(i) or (i.dtype is not None and i.dtype.is_float):
            raise self.unsupported("a bit index that is not an integer")
        return self.ops.convert(i, I64) if i.dtype is None else i

    def _constant_int(self, expr: ir.Expr, scope: Scope) -> int:
        v = self.value(expr, scope)
        if not isinstance(v, Const):
            raise self.unsupported(f"the bit range bound {render.expr(expr)} is only known at run time")
        return od.int_value_of(v.value)

    def _read(self, place: object, note: bool = True, span: tuple[int, int] | None = None) -> Operand:
        """The value a place holds (places.Place.value)."""
        match place:
            case VarPlace(var):
                if var.port is not None and note:
                    lo, hi = span if span is not None else (0, var.dtype.bits)
                    var.port.note_read(lo, hi)
                return var.value
            case BitsPlace(parent, lo, dtype, reversed_):
                width = dtype.bits
                inner = None
                if isinstance(lo, int):
                    inner = (lo + (span[0] if span else 0), lo + (span[1] if span else width))
                source = self._read(parent, note, inner)
                bits = self._extract(source, lo, width)
                if reversed_:
                    bits = self._reverse(bits, width)
                return self.ops.from_bits(bits, dtype)
            case ElementPlace(array, index):
                options = [e.value for e in array.elements]
                if all(isinstance(o, Const) for o in options):
                    table = self.e.constant(f"np.array([{', '.join(self.ops.code(o) for o in options)}])")
                    count = len(options) - 1
                    return self.ops.arr(f"{table}[np.clip({self.ops._as_int(index)}, 0, {count})]", array.dtype)
                codes = ", ".join(self.ops.code(o, array.dtype) for o in options)
                return self.ops.arr(f"rt.choose({index.code}, [{codes}])", array.dtype)
            case LaneBitPlace(var):
                if note:
                    var.port.note_read(0, 1)
                return var.value
            case ValuePlace(value):
                return value
        raise self.unsupported(f"reading {type(place).__name__}")

    def _extract(self, source: Operand, lo: int | Operand, width: int) -> Operand:
        """Bits lo .. lo+width-1 of a value (a signed value is sign-extended first), typed b<width>."""
        if isinstance(source, Const):
            if od.is_untyped_real_const(source):
                raise self.unsupported("bits of a real number")
            if isinstance(lo, int):
                bits = source.value.data
                if source.dtype is not None and source.dtype.is_signed and bits >> (source.dtype.bits - 1):
                    bits -= 1 << source.dtype.bits
                return Const(ref.typed(DataType("b", width), bits >> lo))
            source = Arr(self.e.temp(self.ops.code(source, source.dtype)), source.dtype)
        if isinstance(source, Pow2) or (source.dtype is None and source.real):
            raise self.unsupported("bits of a real number")
        if source.dtype is not None and source.dtype.is_float:
            source = self.ops.bits(source, source.dtype.bits)
        if lo == 0:
            return self.ops.bits(source, width)
        t = source.dtype or I64
        if od.is_bool(t):
            return Const(ref.typed(DataType("b", width), 0)) if isinstance(lo, int) and lo > 0 else \
                self.ops.bits(self.ops.shift(">>", source, lo), width)
        box = od.container(t)
        box_bits = od.container_bits(t)
        if isinstance(lo, int) and width == 1 and lo < box_bits and not od.is_object(t):
            bit = self.ops._k(1 << lo if lo < box_bits - 1 or not t.is_signed else -(1 << lo), box)
            return self.ops.arr(f"({source.code} & {bit}) != 0", DataType("b", 1))  # one bit: a test
        if isinstance(lo, int):
            if od.is_object(t):
                code = f"{source.code} >> {lo}"
            elif lo >= box_bits:
                if not t.is_signed:
                    return Const(ref.typed(DataType("b", width), 0))
                code = f"{source.code} >> {self.ops._k(box_bits - 1, box)}"
            else:
                code = f"{source.code} >> {self.ops._k(lo, box)}"
        else:
            count = self._count_code(lo, t)
            code = f"{source.code} >> {count}"
        shifted = Arr(self.e.temp(code), t if source.dtype is not None else None, exact=True)
        return self.ops.bits(shifted, width)

    def _reverse(self, pattern: Operand, width: int) -> Operand:
        if isinstance(pattern, Const):
            return Const(ref.typed(pattern.dtype, int(format(pattern.value.data, f"0{width}b")[::-1], 2)))
        if width == 1:
            return pattern
        if od.is_object(pattern.dtype):
            raise self.unsupported("reversing more than 64 bits")
        return self.ops.arr(f"rt.reverse_bits({pattern.code}, {width})", pattern.dtype)
