// Fuzz targets for the smart-card inputs (issue 15): GSMTAP SIM traces in network
// captures and pcsc-spy PC/SC logs. Registered in Entry.swift's `fuzzTargets` as
// "gsmtap-sim" and "pcsc-spy" (see `FuzzHarness.simTargets`).

extension FuzzHarness {
    /// The targets of this file, by name.
    nonisolated(unsafe) static let simTargets: [String: (ByteView) -> Void] = [
        "gsmtap-sim": FuzzHarness.gsmtapSIM,
        "pcsc-spy": FuzzHarness.pcscSpy,
    ]

    // MARK: GSMTAP SIM

    /// The input as packets of a classic pcap whose link type is picked by the first
    /// byte (Ethernet, raw IP, Linux cooked v1/v2, BSD loopback, IPv4). Each chunk is a
    /// length byte and that many bytes; a chunk whose first byte is even is wrapped into
    /// IPv4/UDP port 4729 and a GSMTAP version 2 SIM header (sub-type from its second
    /// byte, the rest the SIM message: TPDU, ATR, ...), so the SIM layers (TPDU split,
    /// T=0 joining, SELECT/files, AUTHENTICATE, CAT BER-TLV, ATR) see arbitrary
    /// messages; an odd one is a whole packet as the fuzzer made it (network headers).
    static func gsmtapSIM(_ data: ByteView) {
        let linkTypes: [UInt32] = [1, 101, 113, 276, 0, 228]
        let linkType = linkTypes[Int(data.byte(0) ?? 0) % linkTypes.count]
        var file: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0]
        file += withUnsafeBytes(of: linkType.littleEndian, Array.init)
        var i = 1
        var n: UInt32 = 0
        while let length = data.byte(i) {
            let chunk = data.slice(i + 1, min(Int(length), data.count - i - 1))?.array ?? []
            i += 1 + chunk.count
            var packet: [UInt8]
            if (chunk.first ?? 0) & 1 == 0 {
                let subType = chunk.count > 1 ? chunk[1] & 0x07 : 0
                let message = Array(chunk.dropFirst(2))
                let gsmtap: [UInt8] = [2, 4, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, subType, 0, 0, 0] + message
                let udpLength = 8 + gsmtap.count
                let total = 20 + udpLength
                let ip: [UInt8] = [0x45, 0, UInt8(truncatingIfNeeded: total >> 8), UInt8(truncatingIfNeeded: total), 0, 0, 0x40, 0,
                                   64, 17, 0, 0, 127, 0, 0, 1, 127, 0, 0, 1,
                                   0x12, 0x79, 0x12, 0x79, UInt8(truncatingIfNeeded: udpLength >> 8),
                                   UInt8(truncatingIfNeeded: udpLength), 0, 0] + gsmtap
                switch linkType {
                case 1: packet = [UInt8](repeating: 0, count: 12) + [0x08, 0x00] + ip
                case 113: packet = [0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00] + ip
                case 276: packet = [0x08, 0x00, 0, 0, 0, 0, 0, 1, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0] + ip
                case 0: packet = [2, 0, 0, 0] + ip
                default: packet = ip
                }
            } else {
                packet = Array(chunk.dropFirst())
            }
            n += 1
            for v in [1_700_000_000, n * 100, UInt32(packet.count), UInt32(packet.count)] {
                file += withUnsafeBytes(of: v.littleEndian, Array.init)
            }
            file += packet
        }
        decode(file, as: .pcap)
    }

    // MARK: pcsc-spy

    /// The input as a pcsc-spy log: after a line that makes it the raw form (first
    /// byte even: a SCardTransmit start line of thread 1) or the decoded form (odd:
    /// an SCardTransmit name line), so both readers see arbitrary lines, and once with
    /// detection deciding (`as: nil`), which also tries every other text format.
    static func pcscSpy(_ data: ByteView) {
        let head: [UInt8] = (data.byte(0) ?? 0) & 1 == 0
            ? Array("1@>|1|0|SCardTransmit\n".utf8) : Array("SCardTransmit\n i hCard: 0x00000001\n".utf8)
        decode(head + data.suffix(from: min(1, data.count)).array, as: .pcscSpy)
        decode(data, as: nil)
    }
}
