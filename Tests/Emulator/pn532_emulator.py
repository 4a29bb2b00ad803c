#!/usr/bin/env python3
"""A PN532 on a pseudo-terminal, for nfcscope's tests (no hardware needed).

Prints the terminal's path on its first line of output, then answers libnfc's
pn532_uart driver the way a PN532 does (NXP UM0701-02, "PN532 User Manual",
6.2: frames 00 00 FF LEN LCS TFI DATA DCS 00, an ACK 00 00 FF 00 FF 00 before
each answer; 7.2 and 7.3: the commands). It holds no card: InListPassiveTarget
finds nothing. Enough for libnfc to open the device, list its modulations and
close it; ends when its standard input closes or it gets SIGTERM.
"""
import os
import select
import signal
import sys
import tty

ACK = bytes([0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00])


def frame(data):
    """A normal information frame from the chip (TFI D5) carrying `data`."""
    body = bytes([0xD5]) + data
    length = len(body)
    return bytes([0x00, 0x00, 0xFF, length, (-length) & 0xFF]) + body + bytes([(-sum(body)) & 0xFF, 0x00])


class Chip:
    def __init__(self):
        self.registers = {}

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
        if code == 0x4A:                      # InListPassiveTarget: no target found
            return b"\x00"
        if code in (0x44, 0x52):              # InDeselect, InRelease: status OK
            return b"\x00"
        return b""                            # SetParameters, SAMConfiguration, RFConfiguration, ...


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
    master, slave = os.openpty()
    tty.setraw(slave)
    print(os.ttyname(slave), flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    chip = Chip()
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
