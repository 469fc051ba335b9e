#!/usr/bin/env python3
"""Edit a partalign table backup for the restore tests (tests/fix/restore-refuse.sh).

    ptedit.py CMD IN OUT [ARGS...]

Reads backup IN (format 1 or 2), applies CMD, writes OUT as format 2 with
a freshly computed trailing CRC-32 (zlib.crc32 of every byte before the
"crc32" line), except to-v1, which writes format 1 (a "crc32" header line
over the region bytes only).  Commands:

    reseal                        no change: only a new checksum
    add-region OFF LEN BYTE       one more region: LEN bytes of BYTE (hex)
    add-line TEXT                 TEXT as a header line before the first region
    set KEY VALUE                 replace the value of header line KEY
    to-v1                         the same content in format 1

The checksum is computed here, independently of partalign.
"""
import sys
import zlib

TRAILER = 15  # "crc32 xxxxxxxx\n"


def load(path):
    data = open(path, "rb").read()
    end = data.index(b"\nend\n") + len(b"\nend\n")
    lines = data[:end].decode().splitlines()
    body = data[end:]
    if lines[0] == "partalign-backup 2":
        if not body.endswith(b"\n") or not body[-TRAILER:].startswith(b"crc32 "):
            sys.exit("%s: no crc32 trailer" % path)
        body = body[:-TRAILER]
    return lines, body


def seal(lines, body, path):
    data = ("\n".join(lines) + "\n").encode() + body
    with open(path, "wb") as f:
        f.write(data + b"crc32 %08x\n" % (zlib.crc32(data) & 0xFFFFFFFF))


def first_region(lines):
    for i, line in enumerate(lines):
        if line.startswith("region "):
            return i
    sys.exit("no region line")


def main():
    cmd, src, dst = sys.argv[1:4]
    args = sys.argv[4:]
    lines, body = load(src)
    if cmd == "reseal":
        pass
    elif cmd == "add-region":
        off, length, byte = int(args[0]), int(args[1]), int(args[2], 16)
        lines.insert(lines.index("end"), "region %d %d" % (off, length))
        body += bytes([byte]) * length
    elif cmd == "add-line":
        lines.insert(first_region(lines), args[0])
    elif cmd == "set":
        key = args[0] + " "
        hits = [i for i, line in enumerate(lines) if line.startswith(key)]
        if len(hits) != 1:
            sys.exit("%d lines start with %r" % (len(hits), key))
        lines[hits[0]] = key + args[1]
    elif cmd == "to-v1":
        keep = ("device ", "id ", "size ", "logical ", "created ", "region ")
        v1 = ["partalign-backup 1"] + [l for l in lines[1:] if l.startswith(keep)]
        v1.append("crc32 %08x" % (zlib.crc32(body) & 0xFFFFFFFF))
        v1.append("end")
        with open(dst, "wb") as f:
            f.write(("\n".join(v1) + "\n").encode() + body)
        return
    else:
        sys.exit("unknown command " + cmd)
    seal(lines, body, dst)


main()
