#!/usr/bin/env python3
"""Damage or bend the GPT of a disk image for tests/fix/fix-hostile.sh.

    gptedit.py IMAGE SECTOR_SIZE CMD [ARGS...]

Works on the raw bytes of IMAGE (a file or a block device) with its own
GPT parser, independent of partalign, libparted and sgdisk.  After each
command that changes a copy on purpose, only what the command names is
left wrong: every other CRC is computed again here (zlib.crc32).

    smash primary|backup        overwrite the header's "EFI PART" signature
    header-crc primary|backup   a wrong header CRC, the rest of the copy intact
    array-crc primary|backup    a wrong entry-array CRC in that copy's header
                                (the header's own CRC made to match)
    entry N FIRST LAST          entry N (1-based) spans FIRST..LAST, in both
                                copies, CRCs recomputed
    hybrid N TYPE               dos entry 2 of sector 0 covers GPT partition N
                                with system id TYPE (hex), besides the 0xEE one
    move-entries LBA            the primary entry array moved to LBA, header
                                updated, CRCs recomputed
"""
import struct
import sys
import zlib


def crc(b):
    return zlib.crc32(b) & 0xFFFFFFFF


class Disk:
    def __init__(self, path, ss):
        self.f = open(path, "r+b")
        self.ss = ss
        self.f.seek(0, 2)
        self.nsec = self.f.tell() // ss

    def read(self, lba, n=1):
        self.f.seek(lba * self.ss)
        return bytearray(self.f.read(n * self.ss))

    def write(self, lba, data):
        self.f.seek(lba * self.ss)
        self.f.write(bytes(data))

    def header(self, which):
        lba = 1 if which == "primary" else self.nsec - 1
        h = self.read(lba)
        if h[:8] != b"EFI PART":
            sys.exit("no GPT header at LBA %d" % lba)
        return lba, h

    def array(self, h):
        elba, count, esize = struct.unpack_from("<QII", h, 72)
        n = (count * esize + self.ss - 1) // self.ss
        return elba, bytearray(self.read(elba, n)[: count * esize]), esize

    def seal_header(self, lba, h):
        hsize = struct.unpack_from("<I", h, 12)[0]
        struct.pack_into("<I", h, 16, 0)
        struct.pack_into("<I", h, 16, crc(h[:hsize]))
        self.write(lba, h)

    def store(self, which, arr):
        lba, h = self.header(which)
        elba = struct.unpack_from("<Q", h, 72)[0]
        pad = (-len(arr)) % self.ss
        self.write(elba, arr + b"\0" * pad)
        struct.pack_into("<I", h, 88, crc(arr))
        self.seal_header(lba, h)


def main():
    path, ss, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    args = sys.argv[4:]
    d = Disk(path, ss)
    if cmd == "smash":
        lba, h = d.header(args[0])
        h[0:8] = b"XXXXXXXX"
        d.write(lba, h)
    elif cmd == "header-crc":
        lba, h = d.header(args[0])
        old = struct.unpack_from("<I", h, 16)[0]
        struct.pack_into("<I", h, 16, old ^ 0x5A5A5A5A)
        d.write(lba, h)
    elif cmd == "array-crc":
        lba, h = d.header(args[0])
        old = struct.unpack_from("<I", h, 88)[0]
        struct.pack_into("<I", h, 88, old ^ 0x5A5A5A5A)
        d.seal_header(lba, h)
    elif cmd == "entry":
        n, first, last = int(args[0]), int(args[1]), int(args[2])
        for which in ("primary", "backup"):
            lba, h = d.header(which)
            elba, arr, esize = d.array(h)
            struct.pack_into("<QQ", arr, (n - 1) * esize + 32, first, last)
            d.store(which, arr)
    elif cmd == "hybrid":
        n, typ = int(args[0]), int(args[1], 16)
        lba, h = d.header("primary")
        elba, arr, esize = d.array(h)
        first, last = struct.unpack_from("<QQ", arr, (n - 1) * esize + 32)
        s0 = d.read(0)
        e = 446 + 16
        s0[e : e + 16] = struct.pack("<B3sB3sII", 0, b"\xff\xff\xff", typ, b"\xff\xff\xff",
                                     first, last - first + 1)
        d.write(0, s0)
    elif cmd == "move-entries":
        new = int(args[0])
        lba, h = d.header("primary")
        elba, arr, esize = d.array(h)
        pad = (-len(arr)) % d.ss
        d.write(elba, b"\0" * (len(arr) + pad))
        d.write(new, arr + b"\0" * pad)
        struct.pack_into("<Q", h, 72, new)
        d.seal_header(lba, h)
    else:
        sys.exit("unknown command " + cmd)
    d.f.flush()


if __name__ == "__main__":
    main()
