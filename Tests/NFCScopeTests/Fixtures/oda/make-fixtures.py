#!/usr/bin/env python3
"""Builds the ODA test captures (APDU logs) of this folder from the test keys here.

The keys were made once with `openssl genrsa -3 -out ca.pem 1024`, `openssl genrsa
-out issuer.pem 896` and `openssl genrsa -out icc.pem 768`; this script reads them
through `openssl rsa -text`, and signs with Python's own integers and hashlib, so
the captures do not depend on nfcscope's RSA or SHA code. Layouts: EMV Book 2
tables 6, 7, 14, 17, 19 and 22; Book 3 10.3 (static data); Visa fDDA version 01
(terminal data UN, amount, currency, 9F69). Run it from this folder; it rewrites
the *.txt logs and plugins/test-ca.plugin.
"""
import hashlib, re, subprocess

RID = "A000000003"           # Visa's RID with an index no published Visa key uses
INDEX = 0xFE
PAN = "4761739001010010"     # a Luhn-valid test PAN
AID = "A0000000031010"

def key(path):
    text = subprocess.run(["openssl", "rsa", "-in", path, "-noout", "-text"], capture_output=True, text=True, check=True).stdout
    def field(name):
        m = re.search(name + r":\s*\n((?:\s+[0-9a-f:]+\n)+)", text)
        return int(m.group(1).replace(":", "").replace(" ", "").replace("\n", ""), 16)
    n = field("modulus"); d = field("privateExponent")
    e = int(re.search(r"publicExponent: (\d+)", text).group(1))
    size = (n.bit_length() + 7) // 8
    return dict(n=n, d=d, e=e, size=size, mod=n.to_bytes(size, "big"), exp=e.to_bytes((e.bit_length() + 7) // 8, "big"))

CA, ISS, ICC = key("ca.pem"), key("issuer.pem"), key("icc.pem")

def sign(k, data):
    assert len(data) == k["size"] and data[0] == 0x6A and data[-1] == 0xBC
    return pow(int.from_bytes(data, "big"), k["d"], k["n"]).to_bytes(k["size"], "big")

def sha1(b): return hashlib.sha1(b).digest()

def tlv(tag, value):
    t = bytes.fromhex(tag)
    n = len(value)
    length = bytes([n]) if n < 128 else bytes([0x81, n]) if n < 256 else bytes([0x82, n >> 8, n & 0xFF])
    return t + length + value

def pan_cn(digits, size):
    h = digits + "F" * (2 * size - len(digits))
    return bytes.fromhex(h)

def issuer_certificate(expiry="1230"):
    """Table 6: issuer key certified by the CA; returns (90, 92)."""
    nca = CA["size"]
    field_len = nca - 36
    mod = ISS["mod"]
    keypart, remainder = (mod, b"") if len(mod) <= field_len else (mod[:field_len], mod[field_len:])
    keypart = keypart + b"\xBB" * (field_len - len(keypart))
    body = bytes([0x02]) + pan_cn(PAN[:6], 4) + bytes.fromhex(expiry) + bytes.fromhex("000001") + bytes([1, 1, len(mod), len(ISS["exp"])]) + keypart
    h = sha1(body + remainder + ISS["exp"])
    return sign(CA, b"\x6A" + body + h + b"\xBC"), remainder

def icc_certificate(static_data, expiry="1230"):
    """Table 14: ICC key certified by the issuer; returns (9F46, 9F48)."""
    ni = ISS["size"]
    field_len = ni - 42
    mod = ICC["mod"]
    keypart, remainder = (mod, b"") if len(mod) <= field_len else (mod[:field_len], mod[field_len:])
    keypart = keypart + b"\xBB" * (field_len - len(keypart))
    body = bytes([0x04]) + pan_cn(PAN, 10) + bytes.fromhex(expiry) + bytes.fromhex("000002") + bytes([1, 1, len(mod), len(ICC["exp"])]) + keypart
    h = sha1(body + remainder + ICC["exp"] + static_data)
    return sign(ISS, b"\x6A" + body + h + b"\xBC"), remainder

def signed_static_data(static_data, dac=bytes.fromhex("DAC1")):
    """Table 7."""
    ni = ISS["size"]
    body = bytes([0x03, 0x01]) + dac + b"\xBB" * (ni - 26)
    return sign(ISS, b"\x6A" + body + sha1(body + static_data) + b"\xBC")

def signed_dynamic_data(dynamic, terminal_data):
    """Tables 17 and 22 (dynamic data: length, ICC dynamic number ...)."""
    nic = ICC["size"]
    body = bytes([0x05, 0x01, len(dynamic)]) + dynamic + b"\xBB" * (nic - len(dynamic) - 25)
    return sign(ICC, b"\x6A" + body + sha1(body + terminal_data) + b"\xBC")

def select(aid, fci_extra=b""):
    a = bytes.fromhex(aid)
    return ("00A40400" + "%02X" % len(a) + aid + "00",
            tlv("6F", tlv("84", a) + tlv("A5", tlv("50", b"TEST VISA") + fci_extra)).hex().upper() + "9000")

def read_record(sfi, record, body):
    return ("00B2%02X%02X00" % (record, sfi << 3 | 4), tlv("70", body).hex().upper() + "9000")

def gpo(pdol_data, response):
    data = tlv("83", pdol_data)
    return ("80A80000%02X" % len(data) + data.hex().upper() + "00", response.hex().upper() + "9000")

def write(name, exchanges, note):
    with open(name, "w") as f:
        f.write("")
        for c, r in exchanges:
            f.write(c + "\n" + r + "\n")
    print(name, "-", note)

TRACK2 = bytes.fromhex(PAN + "D3012201" + "0000000000000F")
TXDATE = bytes.fromhex("261201")
UN = bytes.fromhex("0A1B2C3D")
AMOUNT = bytes.fromhex("000000001234")
CURRENCY = bytes.fromhex("0978")
CDOL1 = bytes.fromhex("9F02065F2A029A039F3704")

def card_record1(extra=b""):
    # SFI 1 record 1, signed for ODA: PAN, expiry, track 2, CDOL1, static tag list (AIP).
    return (tlv("5A", bytes.fromhex(PAN)) + tlv("5F24", bytes.fromhex("301231")) + tlv("57", TRACK2)
            + tlv("8C", CDOL1) + tlv("9F4A", b"\x82") + extra)

def generate_ac(p1, response):
    data = AMOUNT + CURRENCY + TXDATE + UN
    return ("80AE%02X00%02X" % (p1, len(data)) + data.hex().upper() + "00", response.hex().upper() + "9000")

def tc_response():
    return tlv("77", tlv("9F27", b"\x40") + tlv("9F36", b"\x00\x07") + tlv("9F26", bytes.fromhex("1122334455667788"))
               + tlv("9F10", bytes.fromhex("06010A03A00000")))

AFL = bytes.fromhex("08010101" + "10010100")   # SFI 1 record 1 (signed), SFI 2 record 1

def sda(tamper_static=False):
    aip = bytes.fromhex("4000")
    rec1 = card_record1()
    static = rec1 + aip
    i90, i92 = issuer_certificate()
    ssad = signed_static_data(static)
    if tamper_static:   # the card's record differs from what the issuer signed
        rec1 = rec1.replace(bytes.fromhex("301231"), bytes.fromhex("301130"))
    rec2 = tlv("8F", bytes([INDEX])) + tlv("90", i90) + tlv("92", i92) + tlv("9F32", ISS["exp"]) + tlv("93", ssad)
    return [select(AID), gpo(b"", tlv("77", tlv("82", aip) + tlv("94", AFL))),
            read_record(1, 1, rec1), read_record(2, 1, rec2), generate_ac(0x40, tc_response())]

def dda(tamper_issuer=False):
    aip = bytes.fromhex("2000")
    rec1 = card_record1(tlv("9F49", bytes.fromhex("9F3704")))
    static = rec1 + aip
    i90, i92 = issuer_certificate()
    if tamper_issuer:
        i90 = i90[:40] + bytes([i90[40] ^ 0x01]) + i90[41:]
    c46, c48 = icc_certificate(static)
    rec2 = (tlv("8F", bytes([INDEX])) + tlv("90", i90) + tlv("92", i92) + tlv("9F32", ISS["exp"])
            + tlv("9F46", c46) + tlv("9F48", c48) + tlv("9F47", ICC["exp"]))
    dn = bytes.fromhex("0102030405060708")
    sdad = signed_dynamic_data(bytes([len(dn)]) + dn, UN)
    ia = ("00880000%02X" % len(UN) + UN.hex().upper() + "00", tlv("80", sdad).hex().upper() + "9000")
    return [select(AID), gpo(b"", tlv("77", tlv("82", aip) + tlv("94", AFL))),
            read_record(1, 1, rec1), read_record(2, 1, rec2), ia, generate_ac(0x40, tc_response())]

def fdda(expired=False):
    # Visa qVSDC: PDOL with TTQ, amount, currency, date, UN; 9F4B and 9F69 in the GPO answer.
    aip = bytes.fromhex("2040")
    pdol = bytes.fromhex("9F66049F02065F2A029A039F3704")
    ttq = bytes.fromhex("36004000")
    pdol_data = ttq + AMOUNT + CURRENCY + TXDATE + UN
    rec1 = card_record1()
    static = rec1 + aip
    i90, i92 = issuer_certificate()
    c46, c48 = icc_certificate(static, expiry="0120" if expired else "1230")
    rec2 = (tlv("8F", bytes([INDEX])) + tlv("90", i90) + tlv("92", i92) + tlv("9F32", ISS["exp"])
            + tlv("9F46", c46) + tlv("9F48", c48) + tlv("9F47", ICC["exp"]))
    atc = bytes.fromhex("0031")
    card_auth = bytes.fromhex("01") + bytes.fromhex("CAFEBABE") + bytes.fromhex("8000")
    sdad = signed_dynamic_data(bytes([len(atc)]) + atc, UN + AMOUNT + CURRENCY + card_auth)
    response = tlv("77", tlv("82", aip) + tlv("94", AFL) + tlv("9F36", atc) + tlv("9F27", b"\x80")
                   + tlv("9F26", bytes.fromhex("8877665544332211")) + tlv("9F10", bytes.fromhex("06011203A00000"))
                   + tlv("9F69", card_auth) + tlv("9F4B", sdad))
    return [select(AID, tlv("9F38", pdol)), gpo(pdol_data, response),
            read_record(1, 1, rec1), read_record(2, 1, rec2)]

def cda(tamper_answer=False):
    aip = bytes.fromhex("3900")   # DDA, cardholder verification, terminal risk management, CDA
    pdol = bytes.fromhex("9F3501")
    pdol_data = bytes.fromhex("22")
    rec1 = card_record1()
    static = rec1 + aip
    i90, i92 = issuer_certificate()
    c46, c48 = icc_certificate(static)
    rec2 = (tlv("8F", bytes([INDEX])) + tlv("90", i90) + tlv("92", i92) + tlv("9F32", ISS["exp"])
            + tlv("9F46", c46) + tlv("9F48", c48) + tlv("9F47", ICC["exp"]))
    cdol_data = AMOUNT + CURRENCY + TXDATE + UN
    objects = tlv("9F27", b"\x80") + tlv("9F36", b"\x00\x08") + tlv("9F10", bytes.fromhex("0A01A0000000000000"))
    tdhc = sha1(pdol_data + cdol_data + objects)
    dn = bytes.fromhex("1112131415161718")
    ac = bytes.fromhex("A1A2A3A4A5A6A7A8")
    dynamic = bytes([len(dn)]) + dn + b"\x80" + ac + tdhc
    sdad = signed_dynamic_data(dynamic, UN)
    if tamper_answer:   # the ATC the card sent differs from the one it signed over
        objects = objects.replace(tlv("9F36", b"\x00\x08"), tlv("9F36", b"\x00\x09"))
    response = tlv("77", objects + tlv("9F4B", sdad))
    return [select(AID, tlv("9F38", pdol)), gpo(pdol_data, tlv("77", tlv("82", aip) + tlv("94", AFL))),
            read_record(1, 1, rec1), read_record(2, 1, rec2), generate_ac(0x90, response)]

write("sda.txt", sda(), "SDA, verifies")
write("sda-altered-record.txt", sda(tamper_static=True), "SDA, a signed record changed: static data hash fails")
write("dda.txt", dda(), "DDA, verifies")
write("dda-altered-issuer-certificate.txt", dda(tamper_issuer=True), "DDA, one byte of 90 changed: issuer certificate header fails")
write("fdda.txt", fdda(), "fDDA, verifies")
write("fdda-expired-icc-certificate.txt", fdda(expired=True), "fDDA, ICC certificate expired 2020-01")
write("cda.txt", cda(), "CDA, verifies")
write("cda-altered-answer.txt", cda(tamper_answer=True), "CDA, ATC in the answer changed: transaction data hash fails")

ca_line = "%s | %02X | %s | %s | 2030-12-31 | %s | nfcscope test CA (Tests/NFCScopeTests/Fixtures/oda/ca.pem)\n" % (
    RID, INDEX, CA["exp"].hex().upper(), CA["mod"].hex().upper(),
    sha1(bytes.fromhex(RID) + bytes([INDEX]) + CA["mod"] + CA["exp"]).hex().upper())
import os
os.makedirs("plugins", exist_ok=True)
with open("plugins/test-ca.plugin", "w") as f:
    f.write("# The test CA of the ODA fixtures (a lab key: never a scheme's).\n[capk]\n" + ca_line)
