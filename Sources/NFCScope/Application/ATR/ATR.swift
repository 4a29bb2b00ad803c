// The Answer-To-Reset of an ISO/IEC 7816-3 card (section 8.2): TS, T0, the interface
// bytes TAi/TBi/TCi/TDi group by group with the protocols TDi names, the historical
// bytes (ISO/IEC 7816-4 section 8.1.1: category indicator, compact-TLV objects, status
// indicator; PC/SC part 3 storage card identification under RID A0 00 00 03 06) and
// TCK, checked. An ATR arrives once per card connection (PC/SC, CCID), never per
// frame, so the parse may allocate its small lists.

public struct ATRInterfaceGroup: Sendable, Equatable {
    /// i (1-based): TA1, TB1, TC1, TD1 are group 1.
    public var index: Int
    /// The protocol the previous TD named for these bytes (group 1: none, nil).
    public var protocolBefore: UInt8?
    public var ta: UInt8?
    public var tb: UInt8?
    public var tc: UInt8?
    public var td: UInt8?
}

/// One compact-TLV object of the historical bytes (tag: high nibble, length: low nibble).
public struct ATRCompactTLV: Sendable, Equatable {
    public var tag: UInt8
    public var value: [UInt8]

    /// ISO/IEC 7816-4 section 8.1.1.2 (table 83 in the 2020 edition).
    public var name: StaticString {
        switch tag {
        case 0x1: "country code"
        case 0x2: "issuer identification number"
        case 0x3: "card service data"
        case 0x4: "initial access data"
        case 0x5: "card issuer's data"
        case 0x6: "pre-issuing data"
        case 0x7: "card capabilities"
        case 0x8: "status indicator"
        case 0xF: "application identifier"
        default: "unknown"
        }
    }
}

/// PC/SC part 3 (supplement, storage cards): the AID object 4F with RID A0 00 00 03 06,
/// SS (standard) and NN NN (card name).
public struct PCSCStorageCard: Sendable, Equatable {
    public var standard: UInt8
    public var cardName: UInt16

    public var standardName: StaticString? {
        switch standard {
        case 0x03: "ISO 14443 A part 3"
        default: nil
        }
    }

    /// Names confirmed by the published ATRs of these cards (3B 8F 80 01 80 4F 0C A0 00 00
    /// 03 06 03 00 0n ...); other codes are shown as numbers.
    public var name: StaticString? {
        switch cardName {
        case 0x0001: "MIFARE Classic 1K"
        case 0x0002: "MIFARE Classic 4K"
        case 0x0003: "MIFARE Ultralight"
        default: nil
        }
    }
}

public struct ATRInfo: Sendable, Equatable {
    public var bytes: [UInt8]
    public var ts: UInt8
    public var t0: UInt8
    public var groups: [ATRInterfaceGroup] = []
    public var historical: [UInt8] = []
    public var tck: UInt8?
    /// TCK present: whether the XOR of T0 ... TCK is 0.
    public var tckOK: Bool?
    /// Bytes after the ATR's last field.
    public var extra: [UInt8] = []
    /// The ATR ends before a field T0 or a TD announced: the offset where it ends.
    public var truncatedAt: Int?

    /// Protocols named by the TDi, in order (T=0 when none is named).
    public var protocols: [UInt8] {
        var out: [UInt8] = []
        for g in groups { if let td = g.td, !out.contains(td & 0x0F) { out.append(td & 0x0F) } }
        return out.isEmpty ? [0] : out
    }

    public var convention: StaticString? {
        switch ts {
        case 0x3B: "direct"
        case 0x3F: "inverse"
        default: nil
        }
    }

    /// Parses an ATR; nil when it has no T0.
    public init?(_ atr: [UInt8]) {
        guard atr.count >= 2 else { return nil }
        bytes = atr
        ts = atr[0]
        t0 = atr[1]
        var at = 2
        var y = t0 >> 4
        var index = 1
        var previous: UInt8?
        var needsTCK = false
        func take() -> UInt8? {
            guard at < atr.count else { return nil }
            defer { at += 1 }
            return atr[at]
        }
        while y != 0 {
            var g = ATRInterfaceGroup(index: index, protocolBefore: previous)
            if y & 1 != 0 { guard let b = take() else { truncatedAt = at; break }; g.ta = b }
            if y & 2 != 0 { guard let b = take() else { truncatedAt = at; break }; g.tb = b }
            if y & 4 != 0 { guard let b = take() else { truncatedAt = at; break }; g.tc = b }
            if y & 8 != 0 { guard let b = take() else { truncatedAt = at; break }; g.td = b }
            groups.append(g)
            guard let td = g.td else { break }
            // TCK is present when a protocol other than T=0 is indicated (7816-3 8.2.5).
            if td & 0x0F != 0 { needsTCK = true }
            previous = td & 0x0F
            y = td >> 4
            index += 1
        }
        if truncatedAt != nil { return }
        let k = Int(t0 & 0x0F)
        if at + k > atr.count {
            historical = Array(atr[at...])
            truncatedAt = atr.count
            return
        }
        historical = Array(atr[at..<(at + k)])
        at += k
        if needsTCK {
            guard at < atr.count else { truncatedAt = at; return }
            tck = atr[at]
            tckOK = atr[1...at].reduce(0, ^) == 0
            at += 1
        }
        extra = Array(atr[at...])
    }

    // MARK: Interface bytes

    /// TA1: FI (high nibble) and DI (low nibble).
    public var ta1: UInt8? { groups.first?.ta }

    /// Fi for FI (7816-3 table 7); nil for RFU codes.
    public static func fi(_ code: UInt8) -> Int? {
        switch code {
        case 0, 1: 372
        case 2: 558
        case 3: 744
        case 4: 1116
        case 5: 1488
        case 6: 1860
        case 9: 512
        case 10: 768
        case 11: 1024
        case 12: 1536
        case 13: 2048
        default: nil
        }
    }

    /// f(max) in MHz for FI (table 7); tenths of MHz to stay integral.
    public static func fMaxTenthsMHz(_ code: UInt8) -> Int? {
        switch code {
        case 0: 40
        case 1: 50
        case 2: 60
        case 3: 80
        case 4: 120
        case 5: 160
        case 6: 200
        case 9: 50
        case 10: 75
        case 11: 100
        case 12: 150
        case 13: 200
        default: nil
        }
    }

    /// Di for DI (7816-3 table 8); nil for RFU codes.
    public static func di(_ code: UInt8) -> Int? {
        switch code {
        case 1: 1
        case 2: 2
        case 3: 4
        case 4: 8
        case 5: 16
        case 6: 32
        case 7: 64
        case 8: 12
        case 9: 20
        default: nil
        }
    }

    /// Class indicator Y of a TAi after T=15 (7816-3 8.3, table 10): bits for A, B, C.
    public static func classes(_ y: UInt8) -> [String] {
        var out: [String] = []
        if y & 1 != 0 { out.append("A (5 V)") }
        if y & 2 != 0 { out.append("B (3 V)") }
        if y & 4 != 0 { out.append("C (1.8 V)") }
        return out
    }

    /// Clock stop indicator X of a TAi after T=15 (table 9).
    public static func clockStop(_ x: UInt8) -> String {
        switch x & 3 {
        case 0: "not supported"
        case 1: "state L"
        case 2: "state H"
        default: "no preference"
        }
    }

    // MARK: Historical bytes

    /// The historical bytes read by ISO/IEC 7816-4 section 8.1.1.
    public var historicalBytes: HistoricalBytes { HistoricalBytes(historical) }

    public var categoryIndicator: UInt8? { historical.first }

    /// Compact-TLV objects (see `HistoricalBytes.compactTLV`).
    public var compactTLV: (objects: [ATRCompactTLV], brokenAt: Int?) { historicalBytes.compactTLV }

    /// Category 00: the status indicator (LCS, SW1, SW2) in the last 3 bytes.
    public var statusIndicator: [UInt8]? { historicalBytes.statusIndicator }

    /// PC/SC part 3 storage card identification.
    public var storageCard: PCSCStorageCard? { historicalBytes.storageCard }
}

/// Historical bytes as ISO/IEC 7816-4 section 8.1.1 codes them: the category indicator,
/// then compact-TLV objects (category 00 or 80) and the status indicator (category 00).
/// The same rules cover an ATR's historical bytes and those of an ISO 14443-4 ATS
/// (ISO/IEC 14443-4 section 5.2.7 refers to ISO/IEC 7816-4 for them).
public struct HistoricalBytes: Sendable, Equatable {
    public var bytes: [UInt8]

    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    public var categoryIndicator: UInt8? { bytes.first }

    /// Whether the bytes are coded as ISO/IEC 7816-4 section 8.1.1 says: category 00 or 80
    /// with compact-TLV objects that end exactly where they should, each with a tag the
    /// standard assigns (1-8, F), category 00 with its 3-byte status indicator after them;
    /// category 10 with its one DIR data reference byte; or a PC/SC part 3 storage card.
    /// Otherwise (other categories are proprietary or RFU; bytes that break these rules,
    /// such as the ATQB fields PC/SC part 3 puts in the ATR of a type B card) the bytes
    /// have no known meaning and are shown as hex only.
    public var followsISO7816: Bool {
        guard let c = categoryIndicator else { return false }
        switch c {
        case 0x10:
            return bytes.count == 2
        case 0x00, 0x80:
            if storageCard != nil { return true }
            if c == 0x00 && bytes.count < 4 { return false }
            let (objects, broken) = compactTLV
            return broken == nil && objects.allSatisfy { (0x1...0x8).contains($0.tag) || $0.tag == 0xF }
        default:
            return false
        }
    }

    /// Compact-TLV objects: category 00 (all but the last 3 bytes, the status indicator)
    /// or 80 (all after the category byte). `brokenAt` is the offset of an object that
    /// runs past the end.
    public var compactTLV: (objects: [ATRCompactTLV], brokenAt: Int?) {
        guard let c = categoryIndicator, c == 0x00 || c == 0x80, storageCard == nil else { return ([], nil) }
        let end = c == 0x00 ? bytes.count - 3 : bytes.count
        var out: [ATRCompactTLV] = []
        var i = 1
        while i < end {
            let tl = bytes[i]
            let n = Int(tl & 0x0F)
            guard i + 1 + n <= end else { return (out, i) }
            out.append(ATRCompactTLV(tag: tl >> 4, value: Array(bytes[(i + 1)..<(i + 1 + n)])))
            i += 1 + n
        }
        return (out, nil)
    }

    /// Category 00: the status indicator (LCS, SW1, SW2) in the last 3 bytes.
    public var statusIndicator: [UInt8]? {
        guard categoryIndicator == 0x00, bytes.count >= 4 else { return nil }
        return Array(bytes.suffix(3))
    }

    /// PC/SC part 3 storage card identification.
    /// Category 80, then the application identifier as a BER-TLV object 4F 0C: RID
    /// A0 00 00 03 06, SS, NN NN, 4 RFU bytes (not a compact-TLV object).
    public var storageCard: PCSCStorageCard? {
        let h = bytes
        guard h.count >= 11, h[0] == 0x80, h[1] == 0x4F, h[2] == 0x0C,
              Array(h[3..<8]) == [0xA0, 0x00, 0x00, 0x03, 0x06] else { return nil }
        return PCSCStorageCard(standard: h[8], cardName: UInt16(h[9]) << 8 | UInt16(h[10]))
    }
}

extension ATSInfo {
    /// The ATS historical bytes read by ISO/IEC 7816-4 section 8.1.1, nil when there are
    /// none or they are not coded as it says (`HistoricalBytes.followsISO7816`): then they
    /// have no known meaning and are shown as hex only.
    public var decodedHistorical: HistoricalBytes? {
        guard let c = historical.byte(0), c == 0x00 || c == 0x10 || c == 0x80 else { return nil }
        let h = HistoricalBytes(historical.array)
        return h.followsISO7816 ? h : nil
    }
}
