// Field extraction for ISO 14443-3 type B commands and answers.

public enum NFCB {
    public static let apf: UInt8 = 0x05
    public static let atqbStart: UInt8 = 0x50
    public static let attribStart: UInt8 = 0x1D

    /// REQB/WUPB: APf, AFI, PARAM (bit 4 WUPB, bits 3-1 slot count exponent).
    public static func reqb(_ p: ByteView) -> LinkInfo {
        let afi = p.byte(1) ?? 0
        let param = p.byte(2) ?? 0
        let n = Int(param & 0x07)
        // Exponents 5-7 are RFU; 0 slots marks them.
        return .reqb(wakeup: param & 0x08 != 0, afi: afi, param: param, slots: n <= 4 ? 1 << n : 0)
    }

    /// ATQB: 50, PUPI(4), application data(4), protocol info (3, or 4 when extended).
    public static func atqb(_ p: ByteView) -> ATQBInfo? {
        guard p.count == 12 || p.count == 13, p.byte(0) == atqbStart,
              let pupi = p.slice(1, 4), let app = p.slice(5, 4),
              let size = p.byte(10), let fwiFO = p.byte(11) else { return nil }
        let proto = p.suffix(from: 9)
        return ATQBInfo(pupi: pupi, applicationData: app, protocolInfo: proto,
                        maxFrameSize: NFCA.frameSize(size >> 4),
                        // Protocol type: b1 set and b4 clear means ISO 14443-4 compliant.
                        isoDEP: size & 0x09 == 0x01,
                        fwi: fwiFO >> 4,
                        cidSupported: fwiFO & 0x01 != 0,
                        nadSupported: fwiFO & 0x02 != 0,
                        sfgi: p.byte(12).map { $0 >> 4 })
    }

    /// ATTRIB: 1D, identifier (PUPI), Param 1-4, higher-layer INF.
    public static func attrib(_ p: ByteView) -> LinkInfo? {
        guard p.count >= 9, p.byte(0) == attribStart, let pupi = p.slice(1, 4),
              let p1 = p.byte(5), let p2 = p.byte(6), let p3 = p.byte(7), let p4 = p.byte(8) else { return nil }
        return .attrib(pupi: pupi, param1: p1, param2: p2, param3: p3, param4: p4,
                       higherLayer: p.suffix(from: 9))
    }

    /// Answer to ATTRIB: MBLI (high nibble), CID (low nibble), higher-layer response.
    public static func attribAnswer(_ p: ByteView) -> LinkInfo? {
        guard let b = p.byte(0) else { return nil }
        return .attribAnswer(mbli: b >> 4, cid: b & 0x0F, higherLayer: p.suffix(from: 1))
    }
}
