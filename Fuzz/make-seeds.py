#!/usr/bin/env python3
"""Writes the hand-made seeds of the fuzz targets desfire, nfcdep, atr-ats, plist, filter
and usbmon (from the usbmon test fixtures)
into Fuzz/corpus/TARGET/ (the diff seeds come from `nfcscope decode --format jsonl`
of test fixtures: see diff_seeds below). Every seed is built from the layouts the
harness comments and the cited specifications give; run it again after changing one.
    python3 Fuzz/make-seeds.py [path/to/nfcscope]
"""
import os, plistlib, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

def h(s):
    return bytes.fromhex(s.replace(" ", ""))

def chunks(*parts):
    """The harnesses' chunk framing: a length byte, then the bytes."""
    out = b""
    for p in parts:
        assert len(p) < 256
        out += bytes([len(p)]) + p
    return out

def write(target, name, data):
    d = os.path.join(ROOT, "Fuzz", "corpus", target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)

# desfire: command, response, command, response... (NXP MIFARE DESFire EV1/EV2 data
# sheets: codes and layouts; status 00 OK, AF additional frame, A0/F0/AE errors).
uid_batch = h("04 52 61 32 6A 21 80") + h("BA 34 41 13 30") + h("12 19")  # UID, batch, week 12, year 19
write("desfire", "get-version", chunks(h("60"), h("AF 04 01 01 01 00 18 05"),
                                        h("AF"), h("AF 04 01 01 01 04 18 05"),
                                        h("AF"), h("00") + uid_batch))
write("desfire", "applications-files", chunks(
    h("6A"), h("00 01 00 00 02 00 00"),              # GetApplicationIDs: AIDs 000001, 000002
    h("5A 01 00 00"), h("00"),                       # SelectApplication 000001
    h("45"), h("00 0F 01"),                          # GetKeySettings
    h("6F"), h("00 00 01 02"),                       # GetFileIDs
    h("F5 00"), h("00 00 00 E0 EE 20 00 00"),        # GetFileSettings: standard file, plain, 32 bytes
    h("F5 02"), h("00 02 03 10 00 00 00 00 00 00 E8 03 00 00 00 00 00 00"),  # value file, enciphered
    h("BD 00 00 00 00 10 00 00"), h("00") + bytes(range(16)),  # ReadData 16 bytes at 0
    h("6C 02"), h("00 64 00 00 00"),                 # GetValue: 100
    h("5A 99 99 99"), h("A0"),                       # application not found
    h("BD 07 00 00 00 00 00 00"), h("F0")))          # file not found
write("desfire", "authenticate-aes", chunks(h("AA 00"), h("AF") + bytes(range(16)),
                                            h("AF") + bytes(range(32)), h("00") + bytes(range(16, 32))))
write("desfire", "iso-wrapped", chunks(h("90 60 00 00 00"), h("04 01 01 01 00 18 05 91 AF"),
                                       h("90 AF 00 00 00"), h("04 01 01 01 04 18 05 91 AF"),
                                       h("90 AF 00 00 00"), uid_batch + h("91 00"),
                                       h("90 6A 00 00 00"), h("01 00 00 91 00"),
                                       h("90 5A 00 00 03 01 00 00 00"), h("91 00")))
# MIFARE Plus SL3 (NXP MIFARE Plus EV1 data sheet): FIRST AUTHENTICATE key 4000 (sector 0
# key A), LenCap 0; answer 90 + 16 bytes; AUTHENTICATE CONTINUE 72 + 32 bytes, answer 90 + 32;
# READ PLAIN (no command MAC, answer MACed, 37) block 0004, 1 block.
write("desfire", "mifare-plus", chunks(h("70 00 40 00"), h("90") + bytes(16),
                                       h("72") + bytes(32), h("90") + bytes(32),
                                       h("37 04 00 01"), h("90") + bytes(16) + bytes(8)))

# nfcdep: first byte the mode (0 NFC-A packets, 1 NFC-A DEP PFB+data after LLCP ATR, 2
# NFC-F packets, 3 link type 245 flags+PDU). ISO/IEC 18092 12.5, LLCP 1.1, SNEP 1.0.
def llcp(dsap, ptype, ssap):
    w = dsap << 10 | ptype << 6 | ssap
    return bytes([w >> 8, w & 0xFF])
gb = h("46 66 6D 01 01 11 02 02 07 FF 03 02 00 13 04 01 96 07 01 03")
atr_req = h("D4 00") + bytes(range(1, 11)) + h("00 00 00 32") + gb
atr_res = h("D5 01") + bytes(range(11, 21)) + h("00 00 00 0E 12") + h("46 66 6D 01 01 11")
uri = h("D1 01 0C 55 03") + b"example.com"
put = h("10 02 00 00 00") + bytes([len(uri)]) + uri
i_put = llcp(4, 12, 32) + h("00") + put
i_ok = llcp(32, 12, 4) + h("01 10 81 00 00 00 00")
connect_sn = llcp(1, 4, 32) + h("06 0F") + b"urn:nfc:sn:snep"   # CONNECT with SN parameter
cc = llcp(32, 6, 4) + h("02 02 00 80 05 01 04")                   # CC with MIUX, RW
packets = [atr_req, atr_res, h("D4 04 00 12 03"), h("D5 05 00"),
           h("D4 06 00") + llcp(4, 4, 32), h("D5 07 00") + cc,
           h("D4 06 11") + i_put[:10], h("D5 07 41"), h("D4 06 02") + i_put[10:],
           h("D5 07 90 05"), h("D4 06 90 05"), h("D5 07 52"), h("D4 06 02") + i_put[10:],
           h("D5 07 02") + i_ok, h("D4 06 80"), h("D5 07 80"), h("D4 08"), h("D5 09"),
           h("D4 0A"), h("D5 0B")]
write("nfcdep", "nfc-a", b"\x00" + chunks(*packets))
write("nfcdep", "nfc-f", b"\x02" + chunks(*packets))
write("nfcdep", "llcp-dep", b"\x01" + chunks(h("00") + connect_sn, h("00") + cc, h("01") + i_put,
                                             h("01") + i_ok, h("80"), h("80"), h("02") + llcp(0, 0, 0)))
agf = llcp(0, 2, 0) + h("00 02") + llcp(0, 0, 0) + h("00 03") + llcp(32, 6, 4) + h("00")
write("nfcdep", "llcp-245", b"\x03" + chunks(
    h("01") + llcp(0, 1, 0) + gb[3:],                     # PAX with the parameters
    h("00") + llcp(0, 0, 0),                              # SYMM
    h("01") + connect_sn, h("00") + cc, h("01") + i_put, h("00") + i_ok,
    h("01") + llcp(4, 13, 32) + h("01"),                  # RR N(R) 1
    h("01") + llcp(1, 9, 1) + h("08 10 01") + b"urn:nfc:sn:snep",  # SNL with SDREQ
    h("00") + llcp(1, 9, 1) + h("09 02 01 04"),           # SNL with SDRES
    h("01") + agf,                                        # AGF of SYMM and CC
    h("01") + llcp(4, 5, 32),                             # DISC
    h("00") + llcp(32, 7, 4) + h("00"),                   # DM, disconnected
    h("00") + llcp(32, 8, 4) + h("8C 00 10 01"),          # FRMR
    h("01") + llcp(16, 3, 32) + b"ui data"))              # UI

# atr-ats: ISO/IEC 7816-3 ATRs and the PC/SC part 3 storage card form (Tests/NFCScopeTests/ATRTests.swift).
for name, a in [("pcsc-mifare-1k", "3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A"),
                ("ta1", "3B 10 96"), ("t15-class", "3B 80 80 1F 07 18"),
                ("category-00", "3B 08 00 73 C8 40 13 00 90 00"), ("t0-historical", "3B 02 14 50"),
                ("category-80", "3B 81 80 01 80 80"),
                ("t1-groups", "3B F8 13 00 00 81 31 FE 45 4A 43 4F 50 76 32 34 31 B7"),
                ("inverse", "3F 65 25 00 2C 09 69 90 00")]:
    write("atr-ats", name, h(a))

# plist: an app's Info.plist and entitlements as `nfcscope corenfc` reads them
# (docs/corenfc.md), XML and binary (written by Python's plistlib).
info = {"NFCReaderUsageDescription": "Reads tags",
        "com.apple.developer.nfc.readersession.iso7816.select-identifiers": ["A0000002471001", "D2760000850101"],
        "com.apple.developer.nfc.readersession.felica.systemcodes": ["8008", "12FC"],
        "com.apple.developer.nfc.readersession.formats": ["TAG", "NDEF"],
        "Count": 3, "Ratio": 1.5, "Flag": True, "Blob": b"\x00\x01\xff", "Nested": {"a": [1, 2, {"b": "c"}]}}
write("plist", "info.xml", plistlib.dumps(info, fmt=plistlib.FMT_XML))
write("plist", "info.bin", plistlib.dumps(info, fmt=plistlib.FMT_BINARY))
write("plist", "entities.xml", b'<?xml version="1.0"?>\n<!DOCTYPE plist [ <!ENTITY x "y"> ]>\n<!-- c -->'
      b'<plist version="1.0"><dict><key>k&amp;&#x41;&#66;</key><string><![CDATA[a<b]]></string>'
      b'<key>i</key><integer>0x1F</integer><key>d</key><date>2024-01-01T00:00:00Z</date>'
      b'<key>e</key><array/><key>t</key><true/></dict></plist>\n')

# filter: an expression, NUL, --frames, NUL, --only (docs/filters.md examples).
for i, (e, f, o) in enumerate([
        ('apdu.ins == "A8"', None, None), ("apdu.sw != '9000' && !frame", None, None),
        ('tlv.tag == "9F02" || tlv.tag >= 9F00', "1-20,30-", "apdu,frame"),
        ('ndef.records.uri contains "example"', None, "ndef"),
        ('transaction.outcome matches "decl(ine|ined)"', "5", None),
        ('frame.n > 3 and (frame.dir == card or not frame.crc == "bad")', "-10", None),
        ('snep.name == PUT || llcp.type == null', None, "snep,llcp")]):
    data = e.encode()
    if f is not None or o is not None:
        data += b"\x00" + (f or "").encode()
    if o is not None:
        data += b"\x00" + o.encode()
    write("filter", "expr-%d" % i, data)

# usbmon: the records of the usbmon fixtures in UsbmonHarness's form: byte 0 options (bit 0
# link type 189 instead of 220), then per record a flag byte (bit 0 IN endpoint, bit 1
# completion, bit 2 control transfer), a length byte and the data. usbmon header
# (Linux Documentation/usb/usbmon.rst): type at 8 ('S'/'C'), transfer type at 9 (2
# control), endpoint at 10 (bit 7 IN); 48 bytes for link type 189, 64 for 220.
import struct
def usbmon_seed(name):
    raw = open(os.path.join(ROOT, "Tests", "NFCScopeTests", "Fixtures", name), "rb").read()
    assert raw[:4] == h("D4 C3 B2 A1")
    link = struct.unpack("<I", raw[20:24])[0]
    header = 64 if link == 220 else 48
    out = bytes([0 if link == 220 else 1])
    at, n = 24, 0
    while at + 16 <= len(raw) and n < 80:
        incl = struct.unpack("<I", raw[at + 8:at + 12])[0]
        rec = raw[at + 16:at + 16 + incl]
        at += 16 + incl
        if len(rec) < header:
            continue
        flags = (1 if rec[10] & 0x80 else 0) | (2 if rec[8:9] == b"C" else 0) | (4 if rec[9] == 2 else 0)
        data = rec[header:][:255]
        out += bytes([flags, len(data)]) + data
        n += 1
    return out
for f in ["ccid_usbmon.pcap", "pn533_usbmon.pcap"]:
    write("usbmon", f.split(".")[0], usbmon_seed(f))

# diff: two JSON Lines files (decode output without the header's first bytes, which the
# harness adds), separated by a NUL byte.
def diff_seeds(nfcscope):
    prefix = b'{"type":"input","schema":"nfcscope.jsonl/'
    fx = os.path.join(ROOT, "Tests", "NFCScopeTests", "Fixtures")
    def jsonl(name, lines=40):
        out = subprocess.run([nfcscope, "decode", "--format", "jsonl", os.path.join(fx, name)],
                             capture_output=True).stdout
        out = b"\n".join(out.split(b"\n")[:lines]) + b"\n"
        assert out.startswith(prefix), name
        return out[len(prefix):]
    pairs = [("hf_visa_apple_normal.trace", "hf_visa_apple_transit_bypass.trace"),
             ("hf_mfdes_sniff.trace", "hf_14a_reader_7b_rats.trace"),
             ("test_NFC-F_212kbps_001.json", "test_NFC-F_212kbps_002.json"),
             ("snep_p2p_trace.pcap", "android-beam-server.pcap")]
    for a, b in pairs:
        write("diff", a.split(".")[0], jsonl(a) + b"\x00" + jsonl(b))

if len(sys.argv) > 1:
    diff_seeds(sys.argv[1])
