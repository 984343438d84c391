#!/usr/bin/env python3
"""Writes a journal (proto/journal.h) in compact form: the entry area cut down to what was
reserved and the thread blocks moved up behind it, so that a seed for the fuzzer fits its input
size limit. The reader sees the same entries and blocks.

Usage: compact_journal.py IN.ompjournal OUT.ompjournal
"""
import struct
import sys

PAGE = 4096


def main(src, dst):
    data = open(src, "rb").read()
    (entries_offset, entries_capacity, blocks_offset, block_bytes) = struct.unpack_from("<QQQQ", data, 16)
    (entries_reserved,) = struct.unpack_from("<Q", data, 64)
    (threads,) = struct.unpack_from("<I", data, 80)
    used = min(entries_reserved, entries_capacity)
    capacity = (entries_offset + used + PAGE - 1) // PAGE * PAGE - entries_offset
    new_blocks = entries_offset + capacity
    out = bytearray(data[:entries_offset + used].ljust(new_blocks, b"\0"))
    out += data[blocks_offset:blocks_offset + threads * block_bytes]
    struct.pack_into("<QQ", out, 24, capacity, new_blocks)
    open(dst, "wb").write(bytes(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
