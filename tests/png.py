"""A PNG reader for the browser test's screenshots: 8-bit RGB or RGBA, non-interlaced (what Chromium writes), with
zlib and numpy only (no imaging package is a dependency)."""

from __future__ import annotations

import struct
import zlib

import numpy as np


def decode_png(data: bytes) -> np.ndarray:
    """An 8-bit, non-interlaced RGB or RGBA PNG as a (height, width, channels) uint8 array."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, header = 8, bytearray(), b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind, body = data[pos + 4 : pos + 8], data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and color in (2, 6) and interlace == 0, (depth, color, interlace)
    bpp = 3 if color == 2 else 4
    stride = width * bpp
    raw = zlib.decompress(bytes(idat))
    assert len(raw) == height * (stride + 1), "truncated image data"
    out = np.zeros((height, stride), dtype=np.uint8)
    prior = np.zeros(stride, dtype=np.int64)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int64)
        if kind == 0:
            row = line
        elif kind == 1:  # Sub: a running sum per channel
            row = np.cumsum(line.reshape(width, bpp), axis=0).reshape(-1) % 256
        elif kind == 2:  # Up
            row = (line + prior) % 256
        elif kind in (3, 4):  # Average and Paeth depend on the pixel just decoded: one byte at a time
            row = _unfilter_serial(kind, line.tolist(), prior.tolist(), bpp)
        else:
            raise AssertionError(f"unknown PNG filter {kind}")
        out[y] = row
        prior = np.asarray(row, dtype=np.int64)
    return out.reshape(height, width, bpp)


def _unfilter_serial(kind: int, line: list[int], prior: list[int], bpp: int) -> np.ndarray:
    """One row of PNG filter Average (3) or Paeth (4) undone, byte by byte (each byte needs the one before)."""
    row = [0] * len(line)
    for x, value in enumerate(line):
        a = row[x - bpp] if x >= bpp else 0
        b = prior[x]
        if kind == 3:
            row[x] = (value + (a + b) // 2) & 255
            continue
        c = prior[x - bpp] if x >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        row[x] = (value + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    return np.asarray(row, dtype=np.int64)
