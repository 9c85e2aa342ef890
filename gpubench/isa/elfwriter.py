"""Assembly -> an AMDGPU code object (ELF64 shared object), without LLVM.

`assemble_code_object` makes what `llvm-mc-22 -filetype=obj` and then `ld.lld-22 -shared` make of
the same source, laid out as ld.lld lays it out, so that every address (and so every kernel
descriptor's kernel_code_entry_byte_offset) is LLVM's:

    ELF header, program headers   PHDR, LOAD r, LOAD rx, LOAD rw, DYNAMIC, GNU_RELRO, GNU_STACK[, NOTE]
    .note       NT_AMDGPU_METADATA ("AMDGPU"), when there is metadata
    .dynsym .gnu.hash .hash .dynstr   the exported symbols: kernels and their `.kd` descriptors
    .rodata     kernel descriptors and read-only data, as the source placed them
    .text       the code, on the next page (same offset within it)
    .dynamic .relro_padding           on the page after
    .symtab .shstrtab .strtab         not loaded

The one difference: ld.lld adds a `.comment` section naming the linker; gpubench writes none, so
the sections after it sit earlier in the file and their indices are one lower.

Metadata: a `.amdgpu_metadata` block is written as LLVM writes it (hsa_metadata.to_msgpack); a
source without one gets the metadata of `hsa_metadata.synthesized` (llvm-mc would write no note,
and a loader needs one), unless ``synthesize_metadata`` is False.
"""
from __future__ import annotations

import re
import struct
from dataclasses import dataclass

from gpubench.isa import amdhsa, hsa_metadata
from gpubench.isa.arch import ISA
from gpubench.isa.asm import AssembledLine, AssemblyError, Program, assemble
from gpubench.isa.codeobject import (
    DESCRIPTOR_SIZE,
    EF_AMDGPU_GENERIC_VERSION_SHIFT,
    ELFOSABI_AMDGPU_HSA,
    FEATURE_SETTINGS,
    MACHINES,
    NT_AMDGPU_METADATA,
    TargetId,
)

PAGE_SIZE = 0x1000  # ld.lld's max and common page size for AMDGPU
ABI_VERSIONS = {4: 2, 5: 3, 6: 4}  # code object version -> EI_ABIVERSION
EM_AMDGPU, ET_DYN = 224, 3
SHT_PROGBITS, SHT_SYMTAB, SHT_STRTAB, SHT_HASH, SHT_DYNAMIC, SHT_NOTE, SHT_NOBITS, SHT_DYNSYM = 1, 2, 3, 5, 6, 7, 8, 11
SHT_GNU_HASH = 0x6FFFFFF6
SHF_WRITE, SHF_ALLOC, SHF_EXECINSTR = 1, 2, 4
PT_LOAD, PT_DYNAMIC, PT_NOTE, PT_PHDR = 1, 2, 4, 6
PT_GNU_STACK, PT_GNU_RELRO = 0x6474E551, 0x6474E552
PF_X, PF_W, PF_R = 1, 2, 4
DT_NULL, DT_HASH, DT_STRTAB, DT_SYMTAB, DT_STRSZ, DT_SYMENT, DT_GNU_HASH = 0, 4, 5, 6, 10, 11, 0x6FFFFEF5
STB_LOCAL, STB_GLOBAL, STB_WEAK = 0, 1, 2
STT_NOTYPE, STT_OBJECT, STT_FUNC = 0, 1, 2
STV_DEFAULT, STV_INTERNAL, STV_HIDDEN, STV_PROTECTED = 0, 1, 2, 3
SYMBOL_TYPES = {"function": STT_FUNC, "stt_func": STT_FUNC, "object": STT_OBJECT, "stt_object": STT_OBJECT,
                "notype": STT_NOTYPE, "stt_notype": STT_NOTYPE}  # `.type NAME,@function` and its spellings
VISIBILITIES = {".protected": STV_PROTECTED, ".hidden": STV_HIDDEN, ".internal": STV_INTERNAL}
BINDINGS = {".globl": STB_GLOBAL, ".global": STB_GLOBAL, ".weak": STB_WEAK, ".local": STB_LOCAL}
_EHDR = struct.Struct("<16sHHIQQQIHHHHHH")
_PHDR = struct.Struct("<IIQQQQQQ")
_SHDR = struct.Struct("<IIQQQQIIQQ")
_SYM = struct.Struct("<IBBHQQ")
_IDENTIFIER = re.compile(r"[A-Za-z_.$][\w.$]*")
GNU_HASH_SHIFT2 = 26  # ld.lld's second Bloom filter bit


def e_flags(target: TargetId) -> int:
    """EF_AMDGPU_MACH and, from code object v4 on, the XNACK and SRAMECC settings."""
    machine = {name: value for value, name in MACHINES.items()}[target.processor]
    setting = {name: value for value, name in FEATURE_SETTINGS.items()}
    return (machine | setting[target.xnack] << 8 | setting[target.sramecc] << 10
            | target.generic_version << EF_AMDGPU_GENERIC_VERSION_SHIFT)


# ---------------------------------------------------------------------------------------------
# Symbols, as llvm-mc records them


@dataclass
class Symbol:
    name: str
    section: str | None = None  # None until defined
    offset: int = 0
    size: int = 0
    type: int = STT_NOTYPE
    binding: int = STB_LOCAL
    visibility: int = STV_DEFAULT

    @property
    def exported(self) -> bool:
        """ld.lld -shared exports global and weak symbols that are not hidden."""
        return self.binding != STB_LOCAL and self.visibility in (STV_DEFAULT, STV_PROTECTED)

    @property
    def output_binding(self) -> int:
        """ld.lld makes hidden and internal symbols local."""
        return self.binding if self.visibility in (STV_DEFAULT, STV_PROTECTED) else STB_LOCAL


def collect_symbols(program: Program) -> list[Symbol]:
    """The object's symbols in llvm-mc's order: the order in which the source first names them
    (label, directive or operand). `.L` labels are the assembler's own and stay out."""
    symbols: dict[str, Symbol] = {}
    defined = {line.text for line in program.lines if line.kind == "label"}

    def symbol(name: str) -> Symbol:
        return symbols.setdefault(name, Symbol(name))

    for line in program.lines:
        if line.kind == "label" and not line.text.startswith(".L"):
            sym = symbol(line.text)
            sym.section, sym.offset = line.section, line.offset
        elif line.kind == "instruction":
            for name in _IDENTIFIER.findall(line.text.partition(" ")[2]):
                if name in defined:
                    symbol(name)
        elif line.kind == "directive":
            _symbol_directive(line, program, symbol)
        elif line.kind == "block" and isinstance(line.block, amdhsa.KernelBlock):
            kernel = symbol(line.block.name)
            # As llvm-mc: the descriptor takes the kernel's binding and visibility, then a kernel
            # of default visibility becomes protected so that the descriptor may refer to it.
            symbols[f"{kernel.name}.kd"] = Symbol(f"{kernel.name}.kd", line.section, line.offset, DESCRIPTOR_SIZE,
                                                  STT_OBJECT, kernel.binding, kernel.visibility)
            if kernel.visibility == STV_DEFAULT:
                kernel.visibility = STV_PROTECTED
    return [s for s in symbols.values() if not s.name.startswith(".L")]


def _symbol_directive(line: AssembledLine, program: Program, symbol) -> None:
    name, _, rest = line.text.partition(" ")
    args = [a.strip() for a in rest.split(",")]
    if name in BINDINGS or name in VISIBILITIES:
        for arg in args:
            sym = symbol(arg)
            if name in BINDINGS:
                sym.binding = BINDINGS[name]
            else:
                sym.visibility = VISIBILITIES[name]
    elif name == ".type":
        kind = args[1].lstrip("@%").lower() if len(args) > 1 else ""
        if kind not in SYMBOL_TYPES:
            raise amdhsa.DirectiveError(line.line_number, 1, f"unsupported symbol type in '{line.text}'")
        symbol(args[0]).type = SYMBOL_TYPES[kind]
    elif name == ".size":
        symbol(args[0]).size = _size(line, program, args[1] if len(args) > 1 else "")


def _size(line: AssembledLine, program: Program, expression: str) -> int:
    """`.size`'s value: a number, or the distance between two labels (`.` is the line itself)."""
    if re.fullmatch(r"\d+|0[xX][0-9a-fA-F]+", expression.strip()):
        return int(expression, 0)
    m = re.fullmatch(r"\s*([\w.$]+)\s*-\s*([\w.$]+)\s*", expression)
    addresses = {label.text: (label.section, label.offset) for label in program.lines if label.kind == "label"}
    addresses["."] = (line.section, line.offset)
    if not m or m.group(1) not in addresses or m.group(2) not in addresses:
        raise amdhsa.DirectiveError(line.line_number, 1, f"unsupported .size expression '{expression}'")
    (end_section, end), (start_section, start) = addresses[m.group(1)], addresses[m.group(2)]
    if end_section != start_section:
        raise amdhsa.DirectiveError(line.line_number, 1, "the .size labels are in different sections")
    return end - start


# ---------------------------------------------------------------------------------------------
# The pieces of the ELF file


class StringTable:
    """An ELF string table as ld.lld builds one: a leading NUL, names in the order added, no sharing."""

    def __init__(self):
        self.data = bytearray(b"\0")

    def add(self, name: str) -> int:
        offset = len(self.data)
        self.data += name.encode() + b"\0"
        return offset


def note(name: str, kind: int, desc: bytes) -> bytes:
    """An ELF note, name and description each padded to 4 bytes."""
    name_bytes = name.encode() + b"\0"
    return (struct.pack("<III", len(name_bytes), len(desc), kind) + _pad4(name_bytes) + _pad4(desc))


def _pad4(data: bytes) -> bytes:
    return data + bytes(-len(data) % 4)


def sysv_hash(name: str) -> int:
    h = 0
    for byte in name.encode():
        h = (h << 4) + byte
        h = (h ^ (h >> 24 & 0xF0)) & 0x0FFFFFFF
    return h


def gnu_hash(name: str) -> int:
    h = 5381
    for byte in name.encode():
        h = (h * 33 + byte) & 0xFFFFFFFF
    return h


def gnu_hash_order(names: list[str]) -> tuple[list[str], int]:
    """ld.lld's .dynsym order for its .gnu.hash: by bucket, then as added; and the bucket count
    (a load factor of 4, at least one bucket)."""
    buckets = max(len(names) // 4, 1)
    return sorted(names, key=lambda n: gnu_hash(n) % buckets), buckets  # sorted() is stable


def gnu_hash_section(names: list[str], buckets: int, first_index: int) -> bytes:
    """`.gnu.hash` for the dynamic symbols ``names`` (in .dynsym order from ``first_index``)."""
    hashes = [gnu_hash(n) for n in names]
    mask_words = 1 << (len(names) * 12 // 64).bit_length()  # a power of two above 12 bits a symbol
    bloom = [0] * mask_words
    for h in hashes:
        bloom[h // 64 & (mask_words - 1)] |= 1 << h % 64 | 1 << (h >> GNU_HASH_SHIFT2) % 64
    table = [0] * buckets
    chains = []
    for i, h in enumerate(hashes):
        last = i + 1 == len(hashes) or hashes[i + 1] % buckets != h % buckets
        chains.append(h | 1 if last else h & ~1)
        if i == 0 or hashes[i - 1] % buckets != h % buckets:
            table[h % buckets] = first_index + i
    return struct.pack(f"<4I{mask_words}Q{buckets}I{len(chains)}I", buckets, first_index, mask_words,
                       GNU_HASH_SHIFT2, *bloom, *table, *chains)


def sysv_hash_section(names: list[str]) -> bytes:
    """`.hash` as ld.lld writes it: one bucket per .dynsym entry (the null one included)."""
    count = len(names) + 1
    buckets, chains = [0] * count, [0] * count
    for index, name in enumerate(names, 1):
        bucket = sysv_hash(name) % count
        chains[index], buckets[bucket] = buckets[bucket], index
    return struct.pack(f"<{2 + 2 * count}I", count, count, *buckets, *chains)


# ---------------------------------------------------------------------------------------------
# Layout


@dataclass
class Section:
    name: str
    type: int
    flags: int
    data: bytes
    align: int
    entsize: int = 0
    link: str | None = None  # the name of the section sh_link points to
    info: int = 0
    size: int | None = None  # NOBITS sections have a size but no data
    address: int = 0
    offset: int = 0

    @property
    def sh_size(self) -> int:
        return len(self.data) if self.size is None else self.size


def _align(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def _align_skewed(value: int, alignment: int, skew: int) -> int:
    """The first value not below ``value`` that is ``skew`` modulo ``alignment``."""
    return value + (skew - value) % alignment


def _program_sections(program: Program) -> dict[str, Section]:
    """The sections the source filled, with the alignment its directives ask for (llvm-mc starts
    .text at 4 and data at 1)."""
    sections: dict[str, Section] = {}
    for line in program.lines:
        if line.kind == "label":
            continue
        if line.section not in sections:
            code = line.section.startswith(".text")
            sections[line.section] = Section(line.section, SHT_PROGBITS, SHF_ALLOC | (SHF_EXECINSTR if code else 0),
                                             b"", 4 if code else 1)
        section = sections[line.section]
        section.data += line.data
        words = line.text.replace(",", " ").split()
        if line.kind == "directive" and words[0] in (".p2align", ".balign", ".align") and len(words) > 1:
            value = int(words[1], 0)
            section.align = max(section.align, 1 << value if words[0] == ".p2align" else value)
    for name, section in list(sections.items()):
        if not section.data:
            del sections[name]  # ld.lld keeps no empty section
        elif name not in (".text", ".rodata"):
            first = next(line.line_number for line in program.lines if line.section == name)
            raise amdhsa.DirectiveError(first, 1, f"section {name} holds bytes: the code object writer places only "
                                        ".text and .rodata")
    return sections


@dataclass(frozen=True)
class CodeObjectInputs:
    """What the writer takes from an assembled program."""

    program: Program
    target: TargetId
    code_object_version: int
    metadata: dict | None


def write(inputs: CodeObjectInputs) -> bytes:
    """The code object's bytes, laid out as ld.lld -shared lays out llvm-mc's object."""
    program = inputs.program
    symbols = collect_symbols(program)
    for sym in symbols:
        if sym.section is None:
            raise amdhsa.DirectiveError(_first_line(program, sym.name), 1, f"symbol '{sym.name}' is never defined")
    user_sections = _program_sections(program)
    exported = [s for s in symbols if s.exported]
    dynsym_names, buckets = gnu_hash_order([s.name for s in exported])
    by_name = {s.name: s for s in symbols}
    dynstr = StringTable()
    dynstr_offsets = {s.name: dynstr.add(s.name) for s in exported}  # in the object's order, before sorting

    # Sections in ld.lld's order; contents that hold addresses are filled in once laid out.
    alloc: list[Section] = []
    if inputs.metadata is not None:
        alloc.append(Section(".note", SHT_NOTE, SHF_ALLOC, note("AMDGPU", NT_AMDGPU_METADATA,
                                                                 hsa_metadata.to_msgpack(inputs.metadata)), 4))
    dynsym = Section(".dynsym", SHT_DYNSYM, SHF_ALLOC, bytes(_SYM.size * (len(exported) + 1)), 8, _SYM.size,
                     ".dynstr", 1)
    alloc += [dynsym,
              Section(".gnu.hash", SHT_GNU_HASH, SHF_ALLOC, gnu_hash_section(dynsym_names, buckets, 1), 8,
                      link=".dynsym"),
              Section(".hash", SHT_HASH, SHF_ALLOC, sysv_hash_section(dynsym_names), 4, 4, ".dynsym"),
              Section(".dynstr", SHT_STRTAB, SHF_ALLOC, bytes(dynstr.data), 1)]
    alloc += [user_sections[name] for name in (".rodata", ".text") if name in user_sections]
    dynamic = Section(".dynamic", SHT_DYNAMIC, SHF_ALLOC | SHF_WRITE, bytes(16 * 7), 8, 16, ".dynstr")
    relro_padding = Section(".relro_padding", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, b"", 1, size=0)
    alloc += [dynamic, relro_padding]

    segments = _lay_out(alloc, has_note=inputs.metadata is not None)
    sections = {s.name: s for s in alloc}
    _fill_descriptors(program, sections, by_name)

    def address(sym: Symbol) -> int:
        return sections[sym.section].address + sym.offset

    dynsym.data = _SYM.pack(0, 0, 0, 0, 0, 0) + b"".join(
        _symbol_entry(by_name[n], dynstr_offsets[n], address(by_name[n]), _index(alloc, by_name[n].section))
        for n in dynsym_names)
    dynamic.data = struct.pack("<14Q", DT_SYMTAB, sections[".dynsym"].address, DT_SYMENT, _SYM.size,
                               DT_STRTAB, sections[".dynstr"].address, DT_STRSZ, len(dynstr.data),
                               DT_GNU_HASH, sections[".gnu.hash"].address, DT_HASH, sections[".hash"].address,
                               DT_NULL, 0)

    symtab, strtab = _symtab(symbols, address, alloc, dynamic)
    shstrtab = StringTable()
    non_alloc = [symtab, Section(".shstrtab", SHT_STRTAB, 0, b"", 1), strtab]
    everything = alloc + non_alloc
    names = {s.name: shstrtab.add(s.name) for s in everything}
    non_alloc[1].data = bytes(shstrtab.data)
    offset = max(s.offset + (0 if s.type == SHT_NOBITS else s.sh_size) for s in alloc)
    for section in non_alloc:
        section.offset = offset = _align(offset, section.align)
        offset += section.sh_size
    shoff = _align(offset, 8)
    return _file(inputs, segments, everything, names, shoff)


def _first_line(program: Program, name: str) -> int:
    return next(line.line_number for line in program.lines if name in line.text)


def _index(sections: list[Section], name: str) -> int:
    return next(i for i, s in enumerate(sections, 1) if s.name == name)


def _symbol_entry(sym: Symbol, name_offset: int, address: int, section_index: int) -> bytes:
    return _SYM.pack(name_offset, sym.output_binding << 4 | sym.type, sym.visibility, section_index, address, sym.size)


def _lay_out(alloc: list[Section], has_note: bool) -> list[tuple[int, int, Section, Section]]:
    """Give each loaded section its address and offset as ld.lld does; return the program headers
    as (type, flags, first section, last section), PHDR's and GNU_STACK's without sections."""
    read_only = [s for s in alloc if not s.flags & (SHF_EXECINSTR | SHF_WRITE)]
    code = [s for s in alloc if s.flags & SHF_EXECINSTR]
    writable = [s for s in alloc if s.flags & SHF_WRITE]
    loads = [group for group in (read_only, code, writable) if group]
    headers = 1 + len(loads) + 3 + has_note  # PHDR, the LOADs, DYNAMIC, GNU_RELRO, GNU_STACK[, NOTE]
    dot = offset = _EHDR.size + headers * _PHDR.size
    for number, group in enumerate(loads):
        for i, section in enumerate(group):
            if i == 0 and number > 0:
                # A new segment starts on a new page, at the same offset within it as the file has.
                dot = _align(_align(dot, PAGE_SIZE) + dot % PAGE_SIZE, section.align)
                offset = _align_skewed(offset, PAGE_SIZE, dot % PAGE_SIZE)
            else:
                dot = _align(dot, section.align)
                offset = group[0].offset + dot - group[0].address if i else _align(offset, section.align)
            section.address, section.offset = dot, offset
            if section.name == ".relro_padding":
                section.size = _align(dot, PAGE_SIZE) - dot  # RELRO ends on a page boundary
            dot += section.sh_size
            if section.type != SHT_NOBITS:
                offset = section.offset + section.sh_size
    dynamic = next(s for s in writable if s.type == SHT_DYNAMIC)
    result = [(PT_PHDR, PF_R, None, None)]
    result += [(PT_LOAD, PF_R | (PF_X if group is code else 0) | (PF_W if group is writable else 0), group[0], group[-1])
               for group in loads]
    result += [(PT_DYNAMIC, PF_R | PF_W, dynamic, dynamic), (PT_GNU_RELRO, PF_R, dynamic, writable[-1]),
               (PT_GNU_STACK, PF_R | PF_W, None, None)]
    if has_note:
        result.append((PT_NOTE, PF_R, alloc[0], alloc[0]))
    return result


def _fill_descriptors(program: Program, sections: dict[str, Section], symbols: dict[str, Symbol]) -> None:
    """Write each kernel_code_entry_byte_offset: the kernel's address less its descriptor's."""
    for line in program.lines:
        if line.kind != "block" or not isinstance(line.block, amdhsa.KernelBlock):
            continue
        kernel = symbols[line.block.name]
        section = sections[line.section]
        entry = sections[kernel.section].address + kernel.offset - (section.address + line.offset)
        at = line.offset + amdhsa.ENTRY_OFFSET
        section.data = section.data[:at] + struct.pack("<q", entry) + section.data[at + 8:]


def _symtab(symbols: list[Symbol], address, alloc: list[Section], dynamic: Section) -> tuple[Section, Section]:
    """`.symtab` and `.strtab` as ld.lld writes them: the object's locals (hidden symbols become
    local), then `_DYNAMIC`, then the globals; names in the order the symbols were added, with
    `_DYNAMIC`'s last since ld.lld adds it after reading the objects."""
    strtab = StringTable()
    file_locals = [s for s in symbols if s.binding == STB_LOCAL]
    file_globals = [s for s in symbols if s.binding != STB_LOCAL]
    offsets = {id(s): strtab.add(s.name) for s in file_locals + file_globals}
    dynamic_symbol = Symbol("_DYNAMIC", dynamic.name, 0, 0, STT_NOTYPE, STB_LOCAL, STV_HIDDEN)
    offsets[id(dynamic_symbol)] = strtab.add("_DYNAMIC")
    demoted = [s for s in file_globals if s.output_binding == STB_LOCAL]
    ordered = file_locals + demoted + [dynamic_symbol] + [s for s in file_globals if s.output_binding != STB_LOCAL]
    data = _SYM.pack(0, 0, 0, 0, 0, 0) + b"".join(
        _symbol_entry(s, offsets[id(s)], address(s), _index(alloc, s.section)) for s in ordered)
    local_count = 1 + len(file_locals) + len(demoted) + 1
    symtab = Section(".symtab", SHT_SYMTAB, 0, data, 8, _SYM.size, ".strtab", local_count)
    return symtab, Section(".strtab", SHT_STRTAB, 0, bytes(strtab.data), 1)


def _file(inputs: CodeObjectInputs, segments, sections: list[Section], names: dict[str, int], shoff: int) -> bytes:
    phnum = len(segments)
    ident = b"\x7fELF" + bytes([2, 1, 1, ELFOSABI_AMDGPU_HSA, ABI_VERSIONS[inputs.code_object_version]]) + bytes(7)
    out = bytearray(_EHDR.pack(ident, ET_DYN, EM_AMDGPU, 1, 0, _EHDR.size, shoff, e_flags(inputs.target),
                               _EHDR.size, _PHDR.size, phnum, _SHDR.size, len(sections) + 1,
                               _index(sections, ".shstrtab")))
    for kind, flags, first, last in segments:
        if kind == PT_PHDR:
            out += _PHDR.pack(kind, flags, _EHDR.size, _EHDR.size, _EHDR.size, phnum * _PHDR.size,
                              phnum * _PHDR.size, 8)
        elif kind == PT_GNU_STACK:
            out += _PHDR.pack(kind, flags, 0, 0, 0, 0, 0, 0)
        else:
            # The first LOAD maps the file from its start: the ELF and program headers too.
            start_offset, start_address = (0, 0) if kind == PT_LOAD and first is sections[0] else (first.offset,
                                                                                                   first.address)
            file_end = max(s.offset + s.sh_size for s in sections if first.address <= s.address <= last.address
                           and s.type != SHT_NOBITS and s.flags & SHF_ALLOC)
            memory_end = last.address + last.sh_size
            align = {PT_LOAD: PAGE_SIZE, PT_DYNAMIC: 8, PT_GNU_RELRO: 1, PT_NOTE: 4}[kind]
            out += _PHDR.pack(kind, flags, start_offset, start_address, start_address, file_end - start_offset,
                              memory_end - start_address, align)
    for section in sections:
        if section.type != SHT_NOBITS:
            out += bytes(section.offset - len(out)) + section.data
    out += bytes(shoff - len(out)) + _SHDR.pack(0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    for section in sections:
        link = _index(sections, section.link) if section.link else 0
        out += _SHDR.pack(names[section.name], section.type, section.flags, section.address, section.offset,
                          section.sh_size, link, section.info, section.align, section.entsize)
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# Assembly to code object


def assemble_code_object(isa: ISA, text: str, filename: str = "<stdin>", mattr: str | None = None,
                         synthesize_metadata: bool = True) -> bytes:
    """The code object `llvm-mc-22 -filetype=obj` + `ld.lld-22 -shared` make of ``text`` for
    ``isa``'s target (-mattr as llvm-mc's: +xnack, -sramecc...). Errors are AssemblyErrors."""
    sources = text.splitlines()
    program = assemble(isa, text, filename)
    try:
        return write(_inputs(isa, program, mattr, synthesize_metadata))
    except amdhsa.DirectiveError as e:
        raise AssemblyError(filename, e.line_number, e.column, e.message, sources[e.line_number - 1]) from None


def _inputs(isa: ISA, program: Program, mattr: str | None, synthesize_metadata: bool) -> CodeObjectInputs:
    try:
        target = amdhsa.target_id(isa.target.name, mattr)
    except ValueError as e:
        raise amdhsa.DirectiveError(1, 1, str(e)) from None
    version = amdhsa.DEFAULT_CODE_OBJECT_VERSION
    for line in program.lines:
        words = line.text.split(None, 1) if line.kind == "directive" else [""]
        if words[0] == ".amdhsa_code_object_version":
            version = int(words[1]) if len(words) > 1 and words[1].strip().isdigit() else 0
            if version not in amdhsa.CODE_OBJECT_VERSIONS:
                raise amdhsa.DirectiveError(line.line_number, 1, "unsupported code object version: gpubench "
                                            f"writes {', '.join(map(str, amdhsa.CODE_OBJECT_VERSIONS))}")
        elif words[0] == ".amdgcn_target":
            named = words[1].strip().strip('"') if len(words) > 1 else ""
            if named != amdhsa.target_name(target):
                raise amdhsa.DirectiveError(line.line_number, 1, f".amdgcn_target directive's target id {named} "
                                            f"does not match the specified target id {amdhsa.target_name(target)}")
    blocks = [line.block for line in program.lines if line.kind == "block"]
    kernels = [b for b in blocks if isinstance(b, amdhsa.KernelBlock)]
    for kernel in kernels:
        amdhsa.check_xnack(kernel, target)
    return CodeObjectInputs(program, target, version, _metadata(isa, blocks, kernels, target, version,
                                                                synthesize_metadata))


def _metadata(isa: ISA, blocks: list, kernels: list[amdhsa.KernelBlock], target: TargetId, version: int,
              synthesize: bool) -> dict | None:
    """The source's `.amdgpu_metadata` document; else, when asked to, the one gpubench synthesizes."""
    documents = [b for b in blocks if isinstance(b, amdhsa.MetadataBlock)]
    args = [b for b in blocks if isinstance(b, amdhsa.ArgsBlock)]
    if len(documents) > 1:
        raise amdhsa.DirectiveError(documents[1].line_number, 1, "a second .amdgpu_metadata block")
    if documents and args:
        raise amdhsa.DirectiveError(args[0].line_number, 1, ".gpubench_args only serves synthesized metadata: "
                                    "with .amdgpu_metadata, give .args there")
    if documents:
        return documents[0].document
    if synthesize and kernels:
        return hsa_metadata.synthesized(kernels, {a.kernel: a.args for a in args}, amdhsa.target_name(target),
                                        isa.arch, version)
    return None
