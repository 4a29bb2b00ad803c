#!/usr/bin/env python3
"""A PN532 on a pseudo-terminal, for nfcscope's tests (no hardware needed).

Prints the terminal's path on its first line of output, then answers libnfc's
pn532_uart driver the way a PN532 does (NXP UM0701-02, "PN532 User Manual",
6.2: frames 00 00 FF LEN LCS TFI DATA DCS 00, an ACK 00 00 FF 00 FF 00 before
each answer; 7.2 and 7.3: the commands). Ends when its standard input closes or
it gets SIGTERM.

Without arguments it holds no card: InListPassiveTarget finds nothing. With
`--cards emv,felica,b,t2` it holds those cards (all data synthetic, chosen here):

  emv     ISO 14443-4 type A card with a Mastercard-like EMV application
          (PPSE, SELECT, GET PROCESSING OPTIONS, READ RECORD);
  felica  FeliCa card formatted as an NFC Forum Type 3 Tag (system 12FC,
          service 000B) holding an NDEF URI record;
  b       ISO 14443-4 type B card that is an NFC Forum Type 4 Tag holding an
          NDEF Text record;
  t2      type A card without ISO-DEP, an NFC Forum Type 2 Tag holding an NDEF
          URI record.

The values the tests assert are the constants below.
"""
import os
import select
import signal
import sys
import tty

ACK = bytes([0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00])


def frame(data):
    """A normal (or, beyond 254 bytes, extended) information frame from the chip (TFI D5)."""
    body = bytes([0xD5]) + data
    n = len(body)
    if n > 254:
        head = bytes([0xFF, 0xFF, n >> 8, n & 0xFF, (-((n >> 8) + (n & 0xFF))) & 0xFF])
    else:
        head = bytes([n, (-n) & 0xFF])
    return bytes([0x00, 0x00, 0xFF]) + head + body + bytes([(-sum(body)) & 0xFF, 0x00])


def tlv(tag, value):
    """BER-TLV with a one-byte length (all values here are shorter than 128 bytes)."""
    assert len(value) < 0x80
    return bytes.fromhex(tag) + bytes([len(value)]) + value


OK = b"\x90\x00"
NOT_FOUND = b"\x6a\x82"         # ISO 7816-4: file or application not found
NO_RECORD = b"\x6a\x83"         # record not found
WRONG_LENGTH = b"\x67\x00"
NOT_SUPPORTED = b"\x6d\x00"     # instruction not supported


class EMVCard:
    """NFC-A, ISO-DEP. An EMV application selected through the PPSE (EMV Book B)."""
    UID = bytes.fromhex("08123456")
    SENS_RES = bytes.fromhex("0004")          # as the PN532 reports it (UM0701-02 7.3.5)
    SAK = 0x20
    ATS = bytes.fromhex("0578807002")         # TL T0 TA TB TC
    AID = bytes.fromhex("A0000000041010")
    LABEL = b"MASTERCARD"
    PDOL = bytes.fromhex("9F66049F02069F37045F2A029A039C019F1A02")
    PAN = bytes.fromhex("5413330089020011")
    TRACK2 = bytes.fromhex("5413330089020011D25122010000000000000F")
    EXPIRY = bytes.fromhex("251231")
    NAME = b"TEST/CARDHOLDER"
    AFL = bytes.fromhex("0801010010010200")   # SFI 1 record 1; SFI 2 records 1-2

    def pdol_length(self):
        total, i = 0, 0
        while i < len(self.PDOL):
            tag_len = 2 if self.PDOL[i] & 0x1F == 0x1F else 1
            total += self.PDOL[i + tag_len]
            i += tag_len + 1
        return total

    def apdu(self, c):
        if c[:4] == bytes.fromhex("00A40400") and len(c) >= 5:
            name = c[5:5 + c[4]]
            if name == b"2PAY.SYS.DDF01":
                entry = tlv("4F", self.AID) + tlv("50", self.LABEL) + tlv("87", b"\x01")
                return tlv("6F", tlv("84", name) + tlv("A5", tlv("BF0C", tlv("61", entry)))) + OK
            if name == self.AID:
                return tlv("6F", tlv("84", self.AID) + tlv("A5", tlv("50", self.LABEL) + tlv("9F38", self.PDOL))) + OK
            return NOT_FOUND
        if c[:4] == bytes.fromhex("80A80000"):
            # The command data must be 83 L with exactly the PDOL's lengths (EMV Book 3, 6.5.8).
            if len(c) < 7 or c[5] != 0x83 or c[6] != self.pdol_length() or c[4] != c[6] + 2:
                return WRONG_LENGTH
            return tlv("77", tlv("82", bytes.fromhex("1980")) + tlv("94", self.AFL)) + OK
        if c[:2] == bytes.fromhex("00B2") and len(c) >= 4:
            record, sfi = c[2], c[3] >> 3
            if (sfi, record) == (1, 1):
                return tlv("70", tlv("57", self.TRACK2) + tlv("5A", self.PAN) + tlv("5F24", self.EXPIRY) +
                           tlv("5F20", self.NAME)) + OK
            if (sfi, record) == (2, 1):
                return tlv("70", tlv("9F42", bytes.fromhex("0826"))) + OK
            if (sfi, record) == (2, 2):
                return tlv("70", tlv("5F25", bytes.fromhex("200101"))) + OK
            return NO_RECORD
        return NOT_SUPPORTED


class Type4Card:
    """NFC-B, ISO-DEP. NFC Forum Type 4 Tag (T4T specification 2.0): NDEF application,
    capability container E103, NDEF file E104."""
    PUPI = bytes.fromhex("1A2B3C4D")
    ATQB = bytes.fromhex("50") + PUPI + bytes.fromhex("00000000") + bytes.fromhex("008171")
    NDEF_APPLICATION = bytes.fromhex("D2760000850101")
    TEXT = b"nfc-b card"
    # One short NDEF record: Text (well-known "T"), UTF-8, language "en".
    MESSAGE = bytes([0xD1, 0x01, 3 + len(TEXT), 0x54, 0x02]) + b"en" + TEXT

    def __init__(self):
        self.files = {
            # CCLEN 15, mapping 2.0, MLe 59, MLc 52, NDEF file control TLV: file E104, 2048 bytes, free access.
            b"\xe1\x03": bytes.fromhex("000F 20 003B 0034 04 06 E104 0800 00 00".replace(" ", "")),
            b"\xe1\x04": bytes([0x00, len(self.MESSAGE)]) + self.MESSAGE,
        }
        self.application = False
        self.current = None

    def apdu(self, c):
        if c[:4] == bytes.fromhex("00A40400") and len(c) >= 5:
            self.application = c[5:5 + c[4]] == self.NDEF_APPLICATION
            self.current = None
            return OK if self.application else NOT_FOUND
        if c[:4] == bytes.fromhex("00A4000C") and len(c) >= 7 and self.application:
            fid = bytes(c[5:7])
            if fid in self.files:
                self.current = fid
                return OK
            return NOT_FOUND
        if c[:2] == bytes.fromhex("00B0") and len(c) >= 5 and self.current:
            offset = (c[2] << 8) | c[3]
            data = self.files[self.current]
            return data[offset:offset + (c[4] or 256)] + OK
        return NOT_SUPPORTED


class Type2Card:
    """NFC-A without ISO-DEP (SAK 00): NFC Forum Type 2 Tag (T2T specification 1.0), 16
    pages of 4 bytes. Page 3 is the capability container: E1, version 1.0, 48-byte data
    area (06 x 8), free access; the data area holds an NDEF TLV, then the terminator TLV."""
    UID = bytes.fromhex("04A1B2C3D4E5F6")
    SENS_RES = bytes.fromhex("0044")
    SAK = 0x00
    URI = b"example.org/type2"

    def __init__(self):
        record = bytes([0xD1, 0x01, 1 + len(self.URI), 0x55, 0x04]) + self.URI   # URI, prefix "https://"
        area = bytes([0x03, len(record)]) + record + b"\xfe"
        area += bytes(48 - len(area))
        head = self.UID[:3] + bytes([0x88 ^ self.UID[0] ^ self.UID[1] ^ self.UID[2]]) + self.UID[3:]
        head += bytes([self.UID[3] ^ self.UID[4] ^ self.UID[5] ^ self.UID[6]]) + bytes(3)
        self.memory = head + bytes.fromhex("E1100600") + area          # pages 0-2, 3, 4-15

    def command(self, c):
        """READ (30 page): 16 bytes from that page on, wrapping round after the last page."""
        if len(c) == 2 and c[0] == 0x30 and c[1] < len(self.memory) // 4:
            start = c[1] * 4
            return (self.memory + self.memory)[start:start + 16]
        return None


class FeliCaCard:
    """FeliCa, NFC Forum Type 3 Tag: system 12FC, service 000B (read without key);
    block 0 is the attribute information block (T3T specification 1.0, 7.1)."""
    IDM = bytes.fromhex("0114B3A2C0D1E2F3")
    PMM = bytes.fromhex("0120220427674EFF")
    SYSTEM = bytes.fromhex("12FC")
    URI = b"example.com/felica"
    BLOCKS = 4
    # Search Service Code answers by index: area 0000-FFFE, services 0009 and 000B (little-endian).
    SEARCH = [bytes.fromhex("0000FEFF"), bytes.fromhex("0900"), bytes.fromhex("0B00")]

    def __init__(self):
        record = bytes([0xD1, 0x01, 1 + len(self.URI), 0x55, 0x04]) + self.URI    # URI, prefix "https://"
        n = len(record)
        attribute = bytearray([0x10, 0x04, 0x01, 0x00, self.BLOCKS, 0, 0, 0, 0, 0x00, 0x00,
                               (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF])
        check = sum(attribute)
        attribute += bytes([check >> 8, check & 0xFF])
        data = record + bytes(16 * self.BLOCKS - len(record))
        self.blocks = [bytes(attribute)] + [data[i * 16:(i + 1) * 16] for i in range(self.BLOCKS)]

    def polling(self, request):
        """request: command code 00, system code (2), request code, time slot."""
        if len(request) < 5 or request[1:3] not in (b"\xff\xff", self.SYSTEM):
            return None
        answer = bytes([0x01]) + self.IDM + self.PMM + (self.SYSTEM if request[3] == 0x01 else b"")
        return bytes([len(answer) + 1]) + answer

    def command(self, f):
        """f: a FeliCa frame from its LEN byte; the answer frame with LEN, or None (no answer)."""
        if len(f) < 2 or f[0] != len(f):
            return None
        code = f[1]
        if code == 0x00:
            return self.polling(f[1:])
        if f[2:10] != self.IDM:
            return None
        if code == 0x06:                     # Read Without Encryption
            services = f[10]
            p = 11 + 2 * services
            count = f[p]
            p += 1
            out = b""
            for _ in range(count):
                if f[p] & 0x80:
                    block = f[p + 1]
                    p += 2
                else:
                    block = f[p + 1] | (f[p + 2] << 8)
                    p += 3
                if block >= len(self.blocks):
                    return self.reply(0x07, b"\x01\xa8")   # illegal block number
                out += self.blocks[block]
            return self.reply(0x07, b"\x00\x00" + bytes([count]) + out)
        if code == 0x0A:                     # Search Service Code
            index = f[10] | (f[11] << 8)
            return self.reply(0x0B, self.SEARCH[index] if index < len(self.SEARCH) else b"\xff\xff")
        if code == 0x0C:                     # Request System Code
            return self.reply(0x0D, b"\x01" + self.SYSTEM)
        return None

    def reply(self, code, body):
        answer = bytes([code]) + self.IDM + body
        return bytes([len(answer) + 1]) + answer


class Chip:
    def __init__(self, cards):
        self.registers = {}
        self.emv = EMVCard() if "emv" in cards else None
        self.felica = FeliCaCard() if "felica" in cards else None
        self.type4 = Type4Card() if "b" in cards else None
        self.type2 = Type2Card() if "t2" in cards else None
        self.halted = set()                   # cards deselected until the field goes off
        self.current = None                   # "emv", "b" or "felica"

    def answer(self, code, args):
        """Data after the answer code (code + 1) for command `code`, per UM0701-02 7.2/7.3."""
        if code == 0x00:                      # Diagnose: the communication test echoes its data
            return args
        if code == 0x02:                      # GetFirmwareVersion: IC PN532, 1.6, ISO A + B + ISO 18092
            return bytes([0x32, 0x01, 0x06, 0x07])
        if code == 0x04:                      # GetGeneralStatus: no error, field off, no target
            return bytes([0x00, 0x00, 0x00, 0x00])
        if code == 0x06:                      # ReadRegister: one byte per 16-bit address
            out = bytearray()
            for i in range(0, len(args) - 1, 2):
                out.append(self.registers.get((args[i] << 8) | args[i + 1], 0x00))
            return bytes(out)
        if code == 0x08:                      # WriteRegister: address (2 bytes) and value, repeated
            for i in range(0, len(args) - 2, 3):
                self.registers[(args[i] << 8) | args[i + 1]] = args[i + 2]
            return b""
        if code == 0x16:                      # PowerDown: status
            return b"\x00"
        if code == 0x32:                      # RFConfiguration; item 01 bit 0 is the field
            if len(args) >= 2 and args[0] == 0x01 and not args[1] & 0x01:
                self.halted.clear()
                self.current = None
            return b""
        if code == 0x4A:                      # InListPassiveTarget
            return self.list_target(args[1] if len(args) > 1 else 0xFF, args[2:])
        if code == 0x40:                      # InDataExchange: Tg, then the data
            return self.exchange(bytes(args[1:]))
        if code in (0x44, 0x52):              # InDeselect, InRelease: the card stays quiet until the field cycles
            if self.current in ("emv", "b", "t2"):
                self.halted.add(self.current)
            self.current = None
            return b"\x00"
        return b""                            # SetParameters, SAMConfiguration, ...

    def list_target(self, brty, initiator):
        """InListPassiveTarget answer: NbTg, Tg, then the target data of its type (7.3.5)."""
        if brty == 0x00 and self.emv and "emv" not in self.halted:
            self.current = "emv"
            c = self.emv
            return bytes([0x01, 0x01]) + c.SENS_RES + bytes([c.SAK, len(c.UID)]) + c.UID + c.ATS
        if brty == 0x00 and self.type2 and "t2" not in self.halted:
            self.current = "t2"
            c = self.type2
            return bytes([0x01, 0x01]) + c.SENS_RES + bytes([c.SAK, len(c.UID)]) + c.UID
        if brty == 0x01 and self.felica:
            answer = self.felica.polling(bytes(initiator))
            if answer:
                self.current = "felica"
                return bytes([0x01, 0x01]) + answer
        if brty == 0x03 and self.type4 and "b" not in self.halted:
            self.current = "b"
            self.type4.application = False
            return bytes([0x01, 0x01]) + self.type4.ATQB + bytes([0x01, 0x00])   # ATTRIB_RES: one byte
        return b"\x00"

    def exchange(self, data):
        """InDataExchange answer: status (00 ok, 01 timeout), then the card's answer."""
        if self.current == "emv":
            return b"\x00" + self.emv.apdu(data)
        if self.current == "b":
            return b"\x00" + self.type4.apdu(data)
        if self.current == "t2":
            answer = self.type2.command(data)
            return b"\x01" if answer is None else b"\x00" + answer
        if self.current == "felica":
            answer = self.felica.command(data)
            return b"\x01" if answer is None else b"\x00" + answer
        return b"\x01"


def frames(buffer):
    """Splits complete host frames off `buffer`; returns (list of TFI+data, rest)."""
    found = []
    while True:
        start = buffer.find(b"\x00\xff")
        if start < 0:
            return found, buffer[-1:] if buffer.endswith(b"\x00") else b""
        head = buffer[start + 2:]
        if len(head) < 2:
            return found, buffer[start:]
        length, lcs = head[0], head[1]
        if length == 0x00 and lcs == 0xFF:    # an ACK from the host (abort): nothing to answer
            buffer = head[2:]
            continue
        if (length + lcs) & 0xFF:              # not a frame start: skip these two bytes
            buffer = buffer[start + 2:]
            continue
        if len(head) < 2 + length + 1:
            return found, buffer[start:]
        body = head[2:2 + length]
        buffer = head[2 + length + 1:]
        if (sum(body) + head[2 + length]) & 0xFF == 0 and body[:1] == b"\xd4":
            found.append(body[1:])


def main():
    cards = set()
    if len(sys.argv) == 3 and sys.argv[1] == "--cards":
        cards = set(sys.argv[2].split(","))
    master, slave = os.openpty()
    tty.setraw(slave)
    print(os.ttyname(slave), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    chip = Chip(cards)
    pending = b""
    while True:
        ready, _, _ = select.select([master, sys.stdin], [], [])
        if sys.stdin in ready and not os.read(sys.stdin.fileno(), 4096):
            return
        if master not in ready:
            continue
        try:
            pending += os.read(master, 4096)
        except OSError:
            continue
        commands, pending = frames(pending)
        for command in commands:
            if not command:
                continue
            os.write(master, ACK)
            os.write(master, frame(bytes([command[0] + 1]) + chip.answer(command[0], command[1:])))


if __name__ == "__main__":
    main()
