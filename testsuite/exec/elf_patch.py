#!/usr/bin/env python3
"""elf_patch.py - writes a copy of an x86-64 ELF program with one field of
one program header changed, for the bad-input rows (run_badinput.sh).
Usage: elf_patch.py SRC DST N FIELD EXPR
  N      the Nth PT_LOAD (0-based), or "ident" to patch e_ident[FIELD]
  FIELD  p_offset, p_vaddr, p_filesz, p_memsz (or an e_ident index)
  EXPR   Python expression of the old value v, e.g. "v + 0x10"
"""
import os
import struct
import sys

src, dst, n, field, expr = sys.argv[1:6]
b = bytearray(open(src, 'rb').read())
if n == 'ident':
    b[int(field)] = eval(expr, {'v': b[int(field)]})
else:
    phoff, = struct.unpack_from('<Q', b, 32)
    phentsize, phnum = struct.unpack_from('<HH', b, 54)
    # Elf64_Phdr: p_type, p_flags, p_offset, p_vaddr, p_paddr, p_filesz, p_memsz, p_align
    at = {'p_offset': 8, 'p_vaddr': 16, 'p_filesz': 32, 'p_memsz': 40}[field]
    loads = [phoff + i * phentsize for i in range(phnum)
             if struct.unpack_from('<I', b, phoff + i * phentsize)[0] == 1]
    ph = loads[int(n)]
    v, = struct.unpack_from('<Q', b, ph + at)
    struct.pack_into('<Q', b, ph + at, eval(expr, {'v': v}) & (2**64 - 1))
open(dst, 'wb').write(b)
os.chmod(dst, 0o755)
