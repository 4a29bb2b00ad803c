import Testing
@testable import NFCScope

/// Session 39, the capture side of the frame path: a little-endian ISO 14443 pcap
/// record read with its pseudo-header under one bounds check
/// (`ByteView.pcapRecordWithPseudoHeader`), a big-endian one's and an export's (link
/// type 252) whole records in `PcapFrameSource.nextRecord`, the export's usual header
/// read from a few words (`ExportedPDU.usualHeader`); and a FeliCa Read Without
/// Encryption request's line and record read in place after the frame decoder's check
/// parsed it (`FeliCaFrameInfo.readRequestParses`, `FeliCaBlockRequest.parsedRead`).
/// Each against the general way, kept here as the oracle.
@Suite struct Session39FrameTests {
    typealias Generator = FramePathFastPathTests.Generator

    /// What the general way fills for an ISO 14443 record (the record walk and
    /// `ISO14443PseudoHeader.parse`), as `PcapFrameSource` did before its short ways.
    static func generalISO14443(_ record: CaptureRecord) -> Frame {
        var frame = Frame(n: record.n, offset: record.offset, time: record.timestamp,
                          dir: nil, tech: .unknown, bytes: record.data)
        if let error = record.error {
            frame.error = error
            return frame
        }
        let header = ISO14443PseudoHeader.parse(record.data)
        frame.dir = header.dir
        frame.event = header.event
        frame.crcIncluded = header.crcIncluded
        frame.bytes = header.bytes
        frame.error = header.error
        return frame
    }

    /// `PcapFrameSource.fillExportedPDU` as it was (with `ExportedPDU.parse` alone).
    static func generalExported(_ record: CaptureRecord) -> Frame {
        var frame = Frame(n: record.n, offset: record.offset, time: record.timestamp,
                          dir: nil, tech: .unknown, bytes: record.data)
        if let error = record.error {
            frame.error = error
            return frame
        }
        let header = ExportedPDU.parse(record.data)
        if let offset = header.brokenTagOffset {
            frame.error = FrameError(.exportedPDUTag, offset)
            return frame
        }
        var tag: ExportedPDU.FrameTag?
        if let value = header.frameTag {
            switch ExportedPDU.FrameTag.parse(value) {
            case .success(let parsed): tag = parsed
            case .failure(.version(let v)): frame.error = FrameError(.frameTagVersion, v); return frame
            case .failure(.invalid(let at)): frame.error = FrameError(.frameTagInvalid, at); return frame
            }
        }
        let name = header.protocolName
        if name.equals(ExportedPDU.iso14443Name) {
            let h = ISO14443PseudoHeader.parse(header.pdu)
            frame.dir = h.dir
            frame.event = h.event
            frame.crcIncluded = h.crcIncluded
            frame.bytes = h.bytes
            frame.error = h.error
        } else if let tag, name.equals(ExportedPDU.felicaName) || name.equals(ExportedPDU.dataName) {
            frame.bytes = tag.bytes ?? header.pdu
            frame.dir = tag.dir
            frame.event = tag.event
            frame.crcIncluded = tag.crcIncluded
        } else if name.equals(ExportedPDU.felicaName) {
            frame.tech = .nfcF
            frame.crcIncluded = false
            frame.bytes = header.pdu
            return frame
        } else {
            frame.error = FrameError(.exportedPDUProtocol)
            return frame
        }
        guard let tag else { return frame }
        frame.flags = tag.flags
        frame.bits = tag.bits
        if tag.tech == .nfcF || tag.tech == .nfcV { frame.tech = tag.tech }
        return frame
    }

    /// Every frame of a capture through `PcapFrameSource.next` against the record walk
    /// (`CaptureReader.next`) and `general`; the positions and problem counts agree at
    /// the end.
    static func expectSourceIsGeneral(_ bytes: [UInt8], _ context: String, general: (CaptureRecord) -> Frame) throws {
        try ByteView.with(bytes) { view in
            var source = try PcapFrameSource(view: view)
            var reader = try CaptureReader(view: view)
            var frame = Frame.blank
            var step = 0
            while true {
                let more = source.next(into: &frame)
                let record = reader.next()
                #expect(more == (record != nil), "\(context) step \(step)")
                guard more, let record else { break }
                var expected = general(record)
                expected.info = .unknown
                frame.info = .unknown
                FramePathFastPathTests.expectSameFrame(frame, expected, "\(context) step \(step)")
                step += 1
            }
            #expect(source.position == reader.offset, "\(context)")
            #expect(source.problemCount == reader.problemCount, "\(context)")
        }
    }

    /// Classic pcaps of link type 264 in both byte orders (the generator of session 16's
    /// test, its files of link type 245 left out): the little-endian records through the
    /// one bounds check in `next`, the big-endian ones through `nextRecord`.
    @Test func iso14443PcapFramesAreTheGeneralWays() throws {
        var g = Generator(state: 0x5339_0001)
        var files = 0
        for round in 0..<3000 {
            let bytes = FramePathFastPathTests.randomPcap(&g)
            guard bytes.count >= 24 else { continue }
            let linkType = bytes[20] == 0 ? UInt32(bytes[23]) | UInt32(bytes[22]) << 8 : UInt32(bytes[20]) | UInt32(bytes[21]) << 8
            guard linkType == LinkType.iso14443 else { continue }
            try Self.expectSourceIsGeneral(bytes, "round \(round)", general: Self.generalISO14443)
            files += 1
        }
        #expect(files > 2000)
    }

    /// One record's bytes as nfcscope's export writes them, or mutated: another name
    /// (or padding), another tag order, a length that runs past the record, a non-zero
    /// end tag or length, a cut-off record.
    static func exportedRecord(_ g: inout Generator) -> [UInt8] {
        func tlv(_ tag: UInt16, _ value: [UInt8]) -> [UInt8] {
            [UInt8(tag >> 8), UInt8(tag & 0xFF), UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
        }
        let names: [[UInt8]] = [Array("felica".utf8) + [0, 0], Array("iso14443".utf8), Array("data".utf8) + [0, 0, 0, 0],
                                Array("felica".utf8) + [0, 1], Array("felicb".utf8) + [0, 0], Array("iso14443".utf8) + [0, 0, 0, 0]]
        let usual = g.next() % 4 != 0
        let name = usual ? names[g.next() % 2] : names[g.next() % names.count]
        // The frame tag: version, dir, tech, event, flags, CRC, bits, reserved, then
        // sometimes the frame's own bytes.
        let techs: [UInt8] = [0, 1, 2, 3, 4, 9]
        let version: UInt8 = g.next() % 20 == 0 ? 2 : 1
        var tagValue: [UInt8] = [version, UInt8(g.next() % 3), techs[g.next() % techs.count],
                                 UInt8(g.next() % 3), g.byte() & 0x0F, UInt8(g.next() % 2), UInt8(g.next() % 8), 0]
        if g.next() % 3 == 0 { tagValue += g.bytes(g.next() % 40) }
        if g.next() % 15 == 0 { tagValue = Array(tagValue.prefix(g.next() % 8)) }
        let pseudo: [UInt8] = [0, [0xFE, 0xFF, 0xFB][g.next() % 3], 0, 0]
        var pdu = g.bytes(g.next() % 30)
        if name.starts(with: Array("iso14443".utf8)) {
            pdu = pseudo + pdu
            pdu[3] = UInt8(pdu.count - 4)
        }
        var end: [UInt8] = [0, 0, 0, 0]
        if g.next() % 12 == 0 { end = [0, 0, 0, UInt8(1 + g.next() % 3)] }
        if g.next() % 30 == 0 { end = [0, 1, 0, 0] }
        var record: [UInt8]
        switch g.next() % 10 {
        case 0: record = tlv(ExportedPDU.frameTag, tagValue) + tlv(ExportedPDU.protocolName, name) + end + pdu
        case 1: record = tlv(ExportedPDU.protocolName, name) + end + pdu
        case 2: record = tlv(ExportedPDU.protocolName, name) + tlv(ExportedPDU.columnProtocol, Array("ISO 15693".utf8))
                + tlv(ExportedPDU.frameTag, tagValue) + end + pdu
        default: record = tlv(ExportedPDU.protocolName, name) + tlv(ExportedPDU.frameTag, tagValue) + end + pdu
        }
        if g.next() % 20 == 0 {
            // The frame tag's length said longer than the record.
            let at = 14
            if record.count > at + 1 { record[at] = 0x7F }
        }
        if g.next() % 15 == 0 { record = Array(record.prefix(g.next() % (record.count + 1))) }
        return record
    }

    /// `ExportedPDU.usualHeader` gives what `parse` gives whenever it gives a header,
    /// and takes the usual records.
    @Test func usualExportedHeaderIsTheTagWalk() {
        var g = Generator(state: 0x5339_0002)
        var taken = 0
        for round in 0..<20_000 {
            let record = Self.exportedRecord(&g)
            ByteView.with(record) { view in
                let walked = ExportedPDU.parse(view)
                guard let (usual, felica) = ExportedPDU.usualHeader(view) else { return }
                taken += 1
                #expect(felica == walked.protocolName.equals(ExportedPDU.felicaName), "round \(round)")
                #expect(felica != walked.protocolName.equals(ExportedPDU.iso14443Name), "round \(round)")
                #expect(usual.protocolName.base == walked.protocolName.base
                        && usual.protocolName.count == walked.protocolName.count, "round \(round)")
                #expect(usual.frameTag?.base == walked.frameTag?.base
                        && usual.frameTag?.count == walked.frameTag?.count, "round \(round)")
                #expect(usual.pdu.base == walked.pdu.base && usual.pdu.count == walked.pdu.count, "round \(round)")
                #expect(walked.brokenTagOffset == nil && usual.brokenTagOffset == nil, "round \(round)")
            }
        }
        #expect(taken > 5000)
    }

    /// Classic pcaps of link type 252 of such records (both byte orders, sometimes a
    /// lying record length or a cut-off end) through `PcapFrameSource` against the
    /// record walk and the fill as it was.
    @Test func exportedPcapFramesAreTheGeneralWay() throws {
        var g = Generator(state: 0x5339_0003)
        for round in 0..<1500 {
            var pcap = PcapBuilder(bigEndian: g.next() % 3 == 0, nanoseconds: g.next() % 2 == 0,
                                   linkType: LinkType.exportedPDU, snapLength: g.next() % 4 == 0 ? 60 : 65535)
            for _ in 0..<(g.next() % 30) {
                let lie: UInt32? = g.next() % 60 == 0 ? UInt32(300_000 + g.next() % 1000) : nil
                pcap.record(seconds: UInt32(1_700_000_000 + g.next() % 100), fraction: UInt32(g.next() % 1_000_000),
                            Self.exportedRecord(&g), capturedLength: lie)
            }
            var bytes = pcap.bytes
            if g.next() % 5 == 0, bytes.count > 24 { bytes.removeLast(1 + g.next() % min(20, bytes.count - 24)) }
            try Self.expectSourceIsGeneral(bytes, "round \(round)", general: Self.generalExported)
        }
    }

    /// Read Without Encryption requests decoded from their frames (0 to 20 services,
    /// 0 to 15 elements of 2 and 3 bytes, some pointing past the services, some cut
    /// short): the decoder marks exactly those `FeliCaBlockRequest.parse` takes, the
    /// frame line's writer gives what the general writers (which parse) give, and
    /// `parsedRead` gives the parse's fields.
    @Test func checkedReadRequestLineIsTheParsedOne() {
        var g = Generator(state: 0x5339_0004)
        var marked = 0, unmarked = 0
        for round in 0..<4000 {
            var packet: [UInt8] = [0x06] + g.bytes(8)
            Session38LinkTests.appendReadRequestBody(&packet, &g)
            if g.next() % 6 == 0 { packet.removeLast(min(packet.count - 1, 1 + g.next() % 6)) }
            // LEN, the packet and its CRC (CRC-16/XMODEM over LEN and the packet).
            var body: [UInt8] = [UInt8(truncatingIfNeeded: packet.count + 1)] + packet
            let crc = ByteView.with(body) { FeliCaCRC.compute($0) }
            body += [UInt8(crc >> 8), UInt8(crc & 0xFF)]
            ByteView.with(packet) { p in
                let parses: Bool
                if case .success(let r) = FeliCaBlockRequest.parse(p, write: false) {
                    parses = true
                    // What the exchange's record reads for a request the check took.
                    if let q = FeliCaBlockRequest.parsedRead(p) {
                        #expect(q.idm.base == r.idm.base && q.idm.count == r.idm.count, "round \(round)")
                        #expect(q.serviceCount == r.serviceCount, "round \(round)")
                        #expect(q.serviceCodes.base == r.serviceCodes.base
                                && q.serviceCodes.count == r.serviceCodes.count, "round \(round)")
                        #expect(q.blocks.count == r.blocks.count, "round \(round)")
                        #expect(q.blocks.bytes.base == r.blocks.bytes.base
                                && q.blocks.bytes.count == r.blocks.bytes.count, "round \(round)")
                        #expect(q.data.count == 0 && r.data.count == 0, "round \(round)")
                    } else {
                        Issue.record("parsedRead declined a packet parse takes, round \(round)")
                    }
                } else {
                    parses = false
                }
                ByteView.with(body) { view in
                    var frame = Frame(n: 1, offset: 0, time: 0, dir: .reader, tech: .nfcF, bytes: view,
                                      crcIncluded: true, info: .unknown)
                    FeliCaFrameDecoder.decode(&frame)
                    guard case .felica(let f) = frame.info else { Issue.record("not FeliCa, round \(round)"); return }
                    #expect(frame.crc == .ok, "round \(round)")
                    #expect(f.readRequestParses == parses, "round \(round)")
                    if parses { marked += 1 } else { unmarked += 1 }
                    var unchecked = f
                    unchecked.readRequestParses = false
                    let expected = Session35FrameTests.general(.felica(unchecked))
                    for capacity in [8, 4096] {
                        var info = frame.info
                        let out = OutputBuffer(initialCapacity: capacity)
                        LinkInfo.writeOtherInfoQuoteAndJSONMembers(of: &info, out)
                        #expect(out.string == expected, "round \(round)")
                    }
                }
            }
        }
        #expect(marked > 1000 && unmarked > 300)
    }
}
