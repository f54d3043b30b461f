#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
#
# png-colors.py FILE RRGGBB...: for each colour, how many pixels of an
# 8-bit RGB or RGBA PNG (what Chromium's --screenshot writes) are within
# 40 of it on each channel, one number a line. Stdlib only (zlib), so the
# end-to-end cases can look at a screenshot without an image library.
import struct
import sys
import zlib


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        sys.exit(f"{path}: not an 8-bit RGB(A) non-interlaced PNG")
    bpp = 4 if ctype == 6 else 3
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    out = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        out.append(bytes(line))
        prev = line
    return w, h, bpp, out


def main():
    w, h, bpp, rows = pixels(sys.argv[1])
    want = [tuple(int(c[i:i + 2], 16) for i in (0, 2, 4)) for c in sys.argv[2:]]
    counts = [0] * len(want)
    for row in rows:
        for x in range(0, w * bpp, bpp):
            px = row[x:x + 3]
            for k, (r, g, b) in enumerate(want):
                if abs(px[0] - r) <= 40 and abs(px[1] - g) <= 40 and abs(px[2] - b) <= 40:
                    counts[k] += 1
    for n in counts:
        print(n)


main()
