// Fuzz targets for card protocols carried in frames: native DESFire / MIFARE Plus
// framing inside ISO-DEP, and NFC-DEP with LLCP (and SNEP above it). The harness
// builds a capture the way a sniffer would record it (valid CRCs, a full activation),
// so the fuzzer's bytes reach the protocol decoders rather than the frame checks.
#if canImport(Glibc)
import Glibc
#endif

extension FuzzHarness {
    // MARK: DESFire (native framing, ISO wrapping, MIFARE Plus native)

    /// The input as ISO-DEP exchanges after an ISO 14443-A activation (SAK 20, RATS):
    /// chunks alternate command, response, command, response... (a length byte and the
    /// bytes; a response over 250 bytes is chained). The card session reads each one as
    /// native DESFire or MIFARE Plus, DESFire in ISO wrapping (CLA 90, status 91xx), or
    /// an APDU. The capture is then also judged as `nfcscope corenfc` judges a card.
    static func desfireExchanges(_ data: ByteView) {
        let parts = chunks(data)
        var c = PcapBuilder()
        c.activateA()
        var i = 0
        while i < parts.count {
            c.apdu(parts[i], i + 1 < parts.count ? parts[i + 1] : nil)
            i += 2
        }
        c.fieldOff()
        decode(c.file, as: .pcap)
        let report = CoreNFCCheck.run(capture: scratchPath, declarations: CoreNFCDeclarations(), polling: .all,
                                      format: .pcap)
        CoreNFCCheck.writeJSONLines(report, to: OutputBuffer())
        CoreNFCCheck.writeText(report, to: OutputBuffer())
    }

    // MARK: NFC-DEP and LLCP

    /// ATR_REQ as ISO/IEC 18092 12.5.1.1 lays it out: D4 00, NFCID3i (10 bytes), DIDi 0,
    /// BSi 0, BRi 0, PPi 32 (LR 254 bytes, general bytes present), then general bytes
    /// starting with the LLCP magic number 46 66 6D (LLCP 1.1 6.2.3.1) and the LLCP
    /// parameters VERSION 1.1 (01 01 11), MIUX (02 02 07 FF), WKS (03 02 00 13), LTO
    /// (04 01 96).
    static let llcpATRRequest: [UInt8] = [0xD4, 0x00, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0x00, 0x00, 0x00, 0x32,
                                          0x46, 0x66, 0x6D, 0x01, 0x01, 0x11, 0x02, 0x02, 0x07, 0xFF,
                                          0x03, 0x02, 0x00, 0x13, 0x04, 0x01, 0x96]
    /// ATR_RES (12.5.1.2): D5 01, NFCID3t, DIDt 0, BSt 0, BRt 0, TO 0E, PPt 32, general
    /// bytes with the LLCP magic number and VERSION 1.1.
    static let llcpATRResponse: [UInt8] = [0xD5, 0x01, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 0x00, 0x00, 0x00,
                                           0x0E, 0x32, 0x46, 0x66, 0x6D, 0x01, 0x01, 0x11]

    /// The first byte picks how the rest (chunks: a length byte and the bytes) is carried:
    /// - 0: NFC-A after SAK 40 (NFC-DEP supported): each chunk an NFC-DEP packet from
    ///   CMD0 on, in a transport frame (F0, LEN, CRC_A), alternately initiator and target;
    /// - 1: the same after an ATR_REQ/ATR_RES that negotiate LLCP, each chunk the PFB and
    ///   data of a DEP_REQ / DEP_RES (so information PDUs carry LLCP PDUs, SNEP, NDEF);
    /// - 2: NFC-F: each chunk an NFC-DEP packet in FeliCa framing (LEN, CRC-F);
    /// - 3: link type 245 (NFC LLCP): each chunk the pseudo-header's flags byte, then one
    ///   LLCP PDU.
    static func nfcDEP(_ data: ByteView) {
        guard let mode = data.byte(0) else { return }
        let parts = chunks(data.suffix(from: 1))
        switch mode % 4 {
        case 0, 1:
            var c = PcapBuilder()
            c.activateA(sak: 0x40)
            func send(_ packet: [UInt8], fromInitiator: Bool) {
                // Transport frame: start byte F0, LEN (itself and the packet), the packet.
                let frame = [0xF0, UInt8(truncatingIfNeeded: packet.count + 1)] + packet
                if fromInitiator { c.reader(frame) } else { c.card(frame) }
            }
            if mode % 4 == 1 {
                send(llcpATRRequest, fromInitiator: true)
                send(llcpATRResponse, fromInitiator: false)
            }
            for (i, p) in parts.enumerated() {
                let initiator = i % 2 == 0
                if mode % 4 == 1 {
                    send((initiator ? [0xD4, 0x06] : [0xD5, 0x07]) + p, fromInitiator: initiator)
                } else {
                    send(p, fromInitiator: initiator)
                }
            }
            c.fieldOff()
            decode(c.file, as: .pcap)
        case 2:
            decode(feliCaTrace(parts), as: .proxmark3, tech: .nfcF)
        default:
            decode(llcpPcap(parts), as: .pcap)
        }
    }

    /// A little-endian pcap of link type 245: per record the 2-byte pseudo-header
    /// (adapter 0, then the flags: bit 0 set when the adapter sent the PDU) and the PDU.
    /// Each chunk is the flags byte and the PDU.
    static func llcpPcap(_ parts: [[UInt8]]) -> [UInt8] {
        var file: [UInt8] = [0xD4, 0xC3, 0xB2, 0xA1, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 245, 0, 0, 0]
        for (i, p) in parts.enumerated() {
            let record: [UInt8] = [0x00] + p
            for v in [UInt32(1_700_000_000), UInt32(i) * 100, UInt32(record.count), UInt32(record.count)] {
                file += withUnsafeBytes(of: v.littleEndian, Array.init)
            }
            file += record
        }
        return file
    }
}
