// Fuzz targets for the sniffer inputs of issue 15: HydraNFC pcaps (link type 147),
// the gzip/DEFLATE inflater and nfc-laboratory .trz archives, and NPP over LLCP.
// Register them in Entry.swift's `fuzzTargets` (the s9-fuzz owner of Fuzz/ does):
//   "hydranfc": SnifferHarness.hydraNFC, "inflate": SnifferHarness.inflate,
//   "trz": SnifferHarness.trz, "npp": SnifferHarness.npp
// or merge `SnifferHarness.targets` into it.

enum SnifferHarness {
    nonisolated(unsafe) static let targets: [String: (ByteView) -> Void] = [
        "hydranfc": hydraNFC, "inflate": inflate, "trz": trz, "npp": npp,
    ]

    /// The input as the records of a big-endian nanosecond pcap of link type 147: each
    /// chunk is a length byte and that many bytes (HydraNFC header and frame), so both
    /// the header check and the NFC-A link layer behind it are reached.
    static func hydraNFC(_ data: ByteView) {
        var file: [UInt8] = [0xA1, 0xB2, 0x3C, 0x4D, 0, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 147]
        var i = 0
        var n: UInt32 = 0
        while let length = data.byte(i) {
            let record = data.slice(i + 1, min(Int(length), data.count - i - 1))?.array ?? []
            i += 1 + record.count
            n += 1
            for v in [0x555D_03E0, n * 1000, UInt32(record.count), UInt32(record.count)] {
                file += withUnsafeBytes(of: v.bigEndian, Array.init)
            }
            file += record
        }
        FuzzHarness.decode(file, as: .pcap)
    }

    /// The input as a gzip file, inflated with small chunks (the window slides often),
    /// and as raw DEFLATE data behind a fixed gzip header.
    static func inflate(_ data: ByteView) {
        _ = try? Gzip.inflate(data, chunkSize: 997) { _, _ in true }
        let wrapped = [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3] + data.array
        _ = ByteView.with(wrapped) { try? Gzip.inflate($0) { _, _ in true } }
    }

    /// The input as an nfc-laboratory archive, decoded as a file is; and its bytes as
    /// the inflated tar stream behind a stored-block gzip member, so the tar walk and
    /// the frame list see fuzzed bytes without the fuzzer having to compress them.
    static func trz(_ data: ByteView) {
        FuzzHarness.decode(data, as: .nfcLabTRZ)
        let file = Gzip.storedMember(data.array)
        FuzzHarness.decode(file, as: .nfcLabTRZ)
    }

    /// The input as the I PDUs of an NPP connection (CONNECT by name to
    /// "com.android.npp", CC, then each chunk of a length byte and that many bytes as one
    /// I PDU from the client, DISC, DM) in a pcap of link type 245.
    static func npp(_ data: ByteView) {
        func header(_ dsap: UInt8, _ ptype: UInt8, _ ssap: UInt8) -> [UInt8] {
            let word = UInt16(dsap) << 10 | UInt16(ptype) << 6 | UInt16(ssap)
            return [UInt8(word >> 8), UInt8(word & 0xFF)]
        }
        let name = Array(NPP.serviceName.utf8)
        var pdus: [(Bool, [UInt8])] = [(true, header(1, 4, 0x20) + [0x06, UInt8(name.count)] + name),
                                       (false, header(0x20, 6, 0x10))]
        var i = 0
        var ns: UInt8 = 0
        while let length = data.byte(i) {
            let part = data.slice(i + 1, min(Int(length), data.count - i - 1))?.array ?? []
            i += 1 + part.count
            pdus.append((true, header(0x10, 12, 0x20) + [ns << 4] + part))
            ns = (ns + 1) & 15
        }
        pdus += [(true, header(0x10, 5, 0x20)), (false, header(0x20, 7, 0x10) + [0])]
        var file: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 245, 0, 0, 0]
        for (k, (sent, pdu)) in pdus.enumerated() {
            let record = [0, sent ? 1 : 0] + pdu
            for v in [1_700_000_000, UInt32(k), UInt32(record.count), UInt32(record.count)] {
                file += withUnsafeBytes(of: UInt32(v).littleEndian, Array.init)
            }
            file += record
        }
        FuzzHarness.decode(file, as: .pcap)
    }
}
