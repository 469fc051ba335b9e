#!/usr/bin/env python3
"""Write an Oracle ASM disk header, from the public kfed layout, for the tests.

    asm-header.py TARGET [--at BYTES] [--group G] [--disk D] [--num N]
                  [--status N] [--secsize N] [--blksize N] [--ausize N]
                  [--dsksize N] [--label L] [--big-endian] [--no-backup]
                  [--backup-set FIELD=VALUE]... [--label-only]

TARGET is an image file or a device, written in place (no truncation) at byte
--at (a partition's start, 0 by default): the first block, and, unless
--no-backup, the copy ASM keeps in allocation unit 1, block ausize/blksize - 2.
--backup-set changes one value of that copy only (dskname, grpname, dsknum,
hdrsts, ausize), to make the two disagree.  --label-only writes what ASMLib's
createdisk leaves: "ORCLDISK" and the label at byte 32, no disk header.

The layout (kfed's kfdhdb offsets are relative to byte 32, after the 32-byte
kfbh): endian 0x00, hard 0x01 (0x82), type 0x02 (1), datfmt 0x03, block.blk
0x04, block.obj 0x08 (0x80000000 + disk number), provstr 0x20 and the ASMLib
label after it, compat 0x40, dsknum 0x44, grptyp 0x46, hdrsts 0x47, dskname
0x48, grpname 0x68, fgname 0x88, secsize 0xd8, blksize 0xda, ausize 0xdc,
dsksize 0xe4.  The checksum at 0x0c is left 0 (its algorithm is not public).
"""
import argparse
import os
import struct


def block(a, blk, over):
    e = '>' if a.big_endian else '<'
    b = bytearray(a.blksize)
    if a.label_only:
        b[0x20:0x28] = b'ORCLDISK'
        b[0x28:0x28 + len(a.label)] = a.label.encode()
        return b
    v = dict(dskname=a.disk, grpname=a.group, dsknum=a.num, hdrsts=a.status,
             ausize=a.ausize)
    for k, x in over.items():
        v[k] = x if k in ('dskname', 'grpname') else int(x, 0)
    b[0] = 0 if a.big_endian else 1
    b[1], b[2], b[3] = 0x82, 1, 1
    struct.pack_into(e + 'II', b, 4, blk, 0x80000000 + v['dsknum'])
    b[0x20:0x28] = b'ORCLDISK'
    b[0x28:0x28 + len(a.label)] = a.label.encode()
    struct.pack_into(e + 'IHBB', b, 0x40, 0x0b200000, v['dsknum'], 1, v['hdrsts'])
    for off, s in ((0x48, v['dskname']), (0x68, v['grpname']), (0x88, v['dskname'])):
        b[off:off + len(s)] = s.encode()
    struct.pack_into(e + 'HHII', b, 0xd8, a.secsize, a.blksize, v['ausize'], 0)
    struct.pack_into(e + 'I', b, 0xe4, a.dsksize)
    return b


def main():
    p = argparse.ArgumentParser()
    p.add_argument('target')
    p.add_argument('--at', type=int, default=0)
    p.add_argument('--group', default='DATA')
    p.add_argument('--disk', default='DATA_0000')
    p.add_argument('--num', type=int, default=0)
    p.add_argument('--status', type=int, default=3)
    p.add_argument('--secsize', type=int, default=512)
    p.add_argument('--blksize', type=int, default=4096)
    p.add_argument('--ausize', type=int, default=1 << 20)
    p.add_argument('--dsksize', type=int, default=8)
    p.add_argument('--label', default='')
    p.add_argument('--big-endian', action='store_true')
    p.add_argument('--no-backup', action='store_true')
    p.add_argument('--label-only', action='store_true')
    p.add_argument('--backup-set', action='append', default=[])
    a = p.parse_args()
    over = dict(s.split('=', 1) for s in a.backup_set)
    fd = os.open(a.target, os.O_WRONLY)
    try:
        os.pwrite(fd, bytes(block(a, 0, {})), a.at)
        if not a.no_backup and not a.label_only:
            n = a.ausize // a.blksize - 2
            os.pwrite(fd, bytes(block(a, n, over)), a.at + a.ausize + n * a.blksize)
        os.fsync(fd)
    finally:
        os.close(fd)


main()
