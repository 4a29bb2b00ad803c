// `convert` of smart-card frames (GSMTAP SIM traces, PC/SC logs): each APDU exchange
// and ATR goes out as a GSMTAP SIM message (libosmocore gsmtap.h: version 2, type 4,
// sub-type 0 APDU or 1 ATR) in UDP (port 4729 both ways) in IPv4 from and to 127.0.0.1,
// link type 101 (raw IP), which Wireshark's gsmtap and gsm_sim dissectors decode and
// nfcscope reads back (GSMTAPSIM.swift).
//
// A SIM trace's TPDU is written as it came. A PC/SC exchange is written the way a T=0
// TPDU lays one out: CLA INS P1 P2 P3, the command data, the response data, SW1 SW2,
// where P3 is Lc when the command has data and Le (00 for 256) when it has none. A
// case 4 command's Le has no place there: it reads back as the case 3 command with the
// same data and the same response. Extended-length APDUs do not fit and are skipped.

extension PcapExporter {
    static let rawIPLinkType: UInt32 = 101

    /// A smart-card frame: written as GSMTAP, held (a PC/SC command waits for its
    /// response), or skipped with the reason.
    func smartCardFrame(_ frame: Frame) {
        guard case .smartCard(let s) = frame.info else { return skip(frame, "smart-card frame without its information") }
        switch s.kind {
        case .tpdu:
            writeGSMTAP(frame, subType: GSMTAP.subTypeAPDU, parts: [frame.bytes])
        case .otherSIM:
            writeGSMTAP(frame, subType: s.code, parts: [frame.bytes])
        case .atr:
            writeGSMTAP(frame, subType: GSMTAP.subTypeATR, parts: [s.atr])
        case .command:
            if let held = heldCommandFrame { skip(held, "PC/SC command without a response") }
            heldCommand.removeAll(keepingCapacity: true)
            frame.bytes.append(to: &heldCommand)
            heldCommandFrame = frame
        case .response:
            guard let commandFrame = heldCommandFrame else { return skip(frame, "PC/SC response without a command") }
            heldCommandFrame = nil
            let command = heldCommand
            ByteView.with(command) { c in
                guard let parsed = try? APDUCommand(parsing: c) else {
                    skip(commandFrame, "PC/SC command that is not an APDU")
                    return skip(frame, "PC/SC response to a command that is not an APDU")
                }
                guard !parsed.extended else {
                    skip(commandFrame, "extended-length APDU (no T=0 TPDU form)")
                    return skip(frame, "response to an extended-length APDU")
                }
                let p3: UInt8 = parsed.lc.map { UInt8($0) } ?? parsed.le.map { UInt8(truncatingIfNeeded: $0) } ?? 0
                var header = Array(command.prefix(4))
                header.append(p3)
                ByteView.with(header) { h in
                    // The pair is one packet: the command's frame is accounted for by it.
                    writeGSMTAP(frame, subType: GSMTAP.subTypeAPDU, parts: [h, parsed.data, frame.bytes])
                }
            }
        case .call:
            let out = OutputBuffer()
            s.writeInfo(out)
            if !s.text.isEmpty { out.ascii(" ("); out.printableOrEscaped(s.text, json: false); out.byte(0x29) }
            if container == .pcapng {
                // The call is noted in the comment of the next packet written (pcapng only).
                nextComment = (nextComment.map { $0 + "\n" } ?? "") + "frame \(frame.n): " + out.string
                callsInComment.append(frame)
            }
            if !s.atr.isEmpty {
                writeGSMTAP(frame, subType: GSMTAP.subTypeATR, parts: [s.atr])
            } else if container == .pcap {
                skip(frame, "\(out.string): a call without APDU or ATR (pcapng keeps it as a packet comment)")
            }
        }
    }

    private func writeGSMTAP(_ frame: Frame, subType: UInt8, parts: [ByteView]) {
        let time = timeOrigin &+ frame.time
        guard time >= 0 else { return skip(frame, "time before 1970") }
        let payload = parts.reduce(0) { $0 + $1.count }
        guard payload <= 60_000 else { return skip(frame, "\(payload) bytes do not fit a record") }
        var out: [UInt8] = []
        out.reserveCapacity(44 + payload)
        let udpLength = 8 + GSMTAP.headerLength + payload
        let total = 20 + udpLength
        out += [0x45, 0, UInt8(total >> 8), UInt8(total & 0xFF), 0, 0, 0x40, 0, 64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1]
        var sum: UInt32 = 0
        for i in stride(from: 0, to: 20, by: 2) { sum += UInt32(out[i]) << 8 | UInt32(out[i + 1]) }
        while sum > 0xFFFF { sum = (sum & 0xFFFF) + (sum >> 16) }
        let checksum = ~UInt16(sum)
        out[10] = UInt8(checksum >> 8)
        out[11] = UInt8(checksum & 0xFF)
        // UDP from and to 4729, no checksum (allowed in IPv4, RFC 768).
        out += [0x12, 0x79, 0x12, 0x79, UInt8(udpLength >> 8), UInt8(udpLength & 0xFF), 0, 0]
        out += [GSMTAP.version, UInt8(GSMTAP.headerLength / 4), GSMTAP.typeSIM, 0, 0, 0, 0, 0, 0, 0, 0, 0, subType, 0, 0, 0]
        for p in parts { p.append(to: &out) }
        // Held until the next one is made, so that calls after the last packet can
        // still be noted in its comment (`finishSmartCard`).
        flushHeldPacket()
        heldPacket = (out, time, nextComment)
        nextComment = nil
        callsInComment.removeAll()
    }

    func flushHeldPacket() {
        guard let (bytes, time, comment) = heldPacket else { return }
        heldPacket = nil
        let saved = nextComment
        nextComment = comment
        writeRaw(bytes, linkType: Self.rawIPLinkType, timeNanos: time)
        nextComment = saved
    }

    /// The end: calls after the last packet go into its comment.
    func finishSmartCard() {
        if let held = heldCommandFrame {
            heldCommandFrame = nil
            skip(held, "PC/SC command without a response")
        }
        if !callsInComment.isEmpty, let packet = heldPacket, let calls = nextComment {
            heldPacket = (packet.bytes, packet.time, (packet.comment.map { $0 + "\n" } ?? "") + "after it: " + calls)
            nextComment = nil
            callsInComment.removeAll()
        }
        flushHeldPacket()
        for call in callsInComment { skip(call, "PC/SC call with no packet to carry its comment") }
        callsInComment.removeAll()
    }
}
