#!/usr/bin/env python3
# Makes the inflater's oracle files: plain.bin (text, repetitive JSON-like lines and
# incompressible bytes), compressed by Python's zlib in every way it can deflate, and
# two nfc-laboratory .trz archives laid out as nfc-laboratory writes them (a gzip of a
# microtar archive: frame.json first, then signal entries). Run from this folder.
import gzip, random, zlib

rng = random.Random(15)
parts = []
for i in range(1500):
    parts.append(b'{"frameData":"%02X:%02X:%02X","timeStart":%d.%06d},\n' % (rng.randrange(256), rng.randrange(256), rng.randrange(256), i, rng.randrange(10**6)))
    if i % 300 == 0:
        parts.append(bytes(rng.randrange(256) for _ in range(3000)))
plain = b"".join(parts)
open("plain.bin", "wb").write(plain)

def gz(data, level=9, strategy=zlib.Z_DEFAULT_STRATEGY):
    c = zlib.compressobj(level, zlib.DEFLATED, 31, 9, strategy)  # wbits 31: gzip wrapper
    return c.compress(data) + c.flush()

open("plain.L0.gz", "wb").write(gz(plain, 0))
open("plain.L1.gz", "wb").write(gz(plain, 1))
open("plain.L9.gz", "wb").write(gz(plain, 9))
open("plain.fixed.gz", "wb").write(gz(plain, 9, zlib.Z_FIXED))
open("plain.huffman.gz", "wb").write(gz(plain, 9, zlib.Z_HUFFMAN_ONLY))
open("plain.rle.gz", "wb").write(gz(plain, 9, zlib.Z_RLE))
half = len(plain) // 2
open("plain.members.gz", "wb").write(gzip.compress(plain[:half], 6, mtime=0) + gzip.compress(plain[half:], 6, mtime=0))
# gzip header with FEXTRA, FNAME, FCOMMENT and FHCRC set (RFC 1952 section 2.3.1).
header = bytes([0x1F, 0x8B, 8, 0x04 | 0x08 | 0x10 | 0x02, 0, 0, 0, 0, 0, 3]) + b"\x04\x00ab\x01\x00" + b"plain.bin\x00" + b"a comment\x00"
header += (zlib.crc32(header) & 0xFFFF).to_bytes(2, "little")
raw = zlib.compressobj(9, zlib.DEFLATED, -15)
open("plain.flags.gz", "wb").write(header + raw.compress(plain) + raw.flush() + zlib.crc32(plain).to_bytes(4, "little") + len(plain).to_bytes(4, "little"))

def microtar_header(name, size):
    # microtar's mtar_raw_header_t: name[100] mode[8] owner[8] group[8] size[12] mtime[12]
    # checksum[8] type linkname[100] padding[255]; numbers as "%o", checksum "%06o" NUL space.
    h = bytearray(512)
    h[0:len(name)] = name
    for at, value in ((100, 0o664), (108, 0), (124, size), (136, 0)):
        text = b"%o" % value
        h[at:at + len(text)] = text
    h[156] = ord("0")
    checksum = 256 + sum(h[:148]) + sum(h[156:])
    h[148:156] = (b"%06o" % checksum) + b"\x00 "
    return bytes(h)

def entry(name, data):
    pad = (512 - len(data) % 512) % 512
    return microtar_header(name, len(data)) + data + bytes(pad)

frames = open("../test_NFC-A_106kbps_001.json", "rb").read()
signal = bytes(rng.randrange(256) for _ in range(40000))
archive = entry(b"frame.json", frames) + entry(b"logic.wav", signal) + bytes(1024)
open("nfclab-frames-first.trz", "wb").write(gzip.compress(archive, 9, mtime=0))
archive = entry(b"radio.wav", signal) + entry(b"frame.json", frames) + bytes(1024)
open("nfclab-signal-first.trz", "wb").write(gzip.compress(archive, 9, mtime=0))
