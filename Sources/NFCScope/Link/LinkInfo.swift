// What the link layer (ISO 14443-3 A/B and ISO 14443-4 framing) recognised in a
// frame. Payload-carrying cases hold views into the frame, never copies, so
// decoding a frame allocates nothing.

/// Up to 10 UID bytes stored inline (a UID assembled over cascade levels lives in
/// no single frame, so it cannot be a view).
public struct UIDBytes: Sendable, Equatable {
    private var storage: (UInt64, UInt64) = (0, 0)
    public private(set) var count: Int = 0

    public init() {}

    public init(_ bytes: some Sequence<UInt8>) {
        for b in bytes { append(b) }
    }

    public mutating func append(_ b: UInt8) {
        guard count < 16 else { return }
        if count < 8 {
            storage.0 |= UInt64(b) << (8 * UInt64(count))
        } else {
            storage.1 |= UInt64(b) << (8 * UInt64(count - 8))
        }
        count += 1
    }

    /// Appends the low `n` bytes (1 to 4) of `part`, most significant first: the same
    /// as `append` of each of them in turn, in one step while they fit the first word
    /// (a SELECT's UID part: four bytes, or three after the cascade tag).
    @inline(__always)
    mutating func appendBigEndian(_ part: UInt32, count n: Int) {
        guard n >= 1, n <= 4 else { return }
        if count &+ n <= 8 {
            let v = UInt64(part.byteSwapped &>> UInt32(8 &* (4 &- n)))
            storage.0 |= v &<< UInt64(8 &* count)
            count &+= n
        } else {
            for shift in stride(from: 8 * (n - 1), through: 0, by: -8) {
                append(UInt8(truncatingIfNeeded: part >> UInt32(shift)))
            }
        }
    }

    /// The bytes of `bytes` in reverse order (an NFC-V UID as the tag sends it,
    /// least significant byte first, read most significant first).
    init(reversing bytes: ByteView) {
        var i = bytes.count
        while i > 0 {
            i &-= 1
            if let b = bytes.byte(i) { append(b) }
        }
    }

    public mutating func removeAll() { self = UIDBytes() }

    /// The bytes as two words, byte `i` in bits `8 * i` up of the first (the second from
    /// byte 8): what `subscript` reads; bits past `count` are zero.
    var words: (UInt64, UInt64) { storage }

    public subscript(i: Int) -> UInt8 {
        i < 8 ? UInt8(truncatingIfNeeded: storage.0 >> (8 * UInt64(i)))
              : UInt8(truncatingIfNeeded: storage.1 >> (8 * UInt64(i - 8)))
    }

    public var array: [UInt8] { (0..<count).map { self[$0] } }

    public static func == (a: UIDBytes, b: UIDBytes) -> Bool {
        a.count == b.count && a.storage.0 == b.storage.0 && a.storage.1 == b.storage.1
    }
}

public enum ISODEPBlockKind: UInt8, Sendable {
    case i, r, s
}

public enum SBlockType: UInt8, Sendable {
    case deselect, wtx, parameters, other
}

/// An ISO 14443-4 block: I-, R- or S-block with its prologue fields.
public struct ISODEPBlock: Sendable {
    // Setting a field the JSON line's tail entry depends on sets `departsFromPCB`.
    public var kind: ISODEPBlockKind { didSet { departsFromPCB = true } }
    public var pcb: UInt8 { didSet { departsFromPCB = true } }
    /// Block number bit (I- and R-blocks).
    public var blockNumber: UInt8 { didSet { departsFromPCB = true } }
    /// I-block: more blocks follow (chaining bit).
    public var chaining: Bool { didSet { departsFromPCB = true } }
    /// R-block: NAK rather than ACK.
    public var nak: Bool { didSet { departsFromPCB = true } }
    public var sType: SBlockType
    /// S(WTX): the WTXM value (low 6 bits of the INF byte).
    public var wtxm: UInt8?
    public var cid: UInt8? { didSet { departsFromPCB = true } }
    public var nad: UInt8? { didSet { departsFromPCB = true } }
    /// Whether the JSON frame line's tail entry (`iBlockTail ?? rBlockTail`) may not be
    /// the PCB's alone (`lineTail(ofPCB:)`): false for every block `ISODEPBlockParser`
    /// makes (its fields are what the PCB codes) and for one made by `init` whose fields
    /// give the same entry; true once such a field is set. The line then reads the PCB
    /// and one table byte rather than testing kind, CID, NAD, PCB and block number and
    /// putting the index together (about 40 instructions a block). False is the
    /// parser's (its block's constant word is what it was without the flag), and the
    /// flag takes padding before `inf`: the block is no larger.
    var departsFromPCB: Bool
    /// The information field (INF) without prologue and CRC.
    public var inf: ByteView

    public init(kind: ISODEPBlockKind, pcb: UInt8, blockNumber: UInt8 = 0, chaining: Bool = false,
                nak: Bool = false, sType: SBlockType = .other, wtxm: UInt8? = nil,
                cid: UInt8? = nil, nad: UInt8? = nil, inf: ByteView = ByteView()) {
        self.kind = kind
        self.pcb = pcb
        self.blockNumber = blockNumber
        self.chaining = chaining
        self.nak = nak
        self.sType = sType
        self.wtxm = wtxm
        self.cid = cid
        self.nad = nad
        self.departsFromPCB = true
        self.inf = inf
        let tail = Self.lineTail(ofPCB: pcb)
        departsFromPCB = (iBlockTail ?? rBlockTail) != (tail == Self.noLineTail ? nil : Int(tail))
    }

    /// The parser's block before its fields are read (`ISODEPBlockParser.parse` clears
    /// `departsFromPCB` after them): `init`'s defaults without its test.
    @inline(__always)
    init(parsing pcb: UInt8, kind: ISODEPBlockKind) {
        self.kind = kind
        self.pcb = pcb
        self.blockNumber = 0
        self.chaining = false
        self.nak = false
        self.sType = .other
        self.wtxm = nil
        self.cid = nil
        self.nad = nil
        self.departsFromPCB = false
        self.inf = ByteView()
    }

    /// `lineTail(ofPCB:)` for a PCB without a tail entry ("~" - "0").
    static var noLineTail: UInt8 { 0x4E }

    /// `iBlockTail ?? rBlockTail` of the block `ISODEPBlockParser` makes from `pcb`, or
    /// `noLineTail` for nil. Such a block has CID or NAD exactly when the PCB's bits 4 or
    /// 3 say so (which `iBlockTail` and `rBlockTail` rule out, as they do S-blocks), and
    /// its block number and chaining or NAK bit are the PCB's bits 1 and 5: the entry is
    /// (bit 1) * 6 + (bit 5) * 9, plus 16 for an R-block, for PCB 02, 03, 12, 13, A2, A3,
    /// B2 and B3. From a table of 256 bytes, entry + "0" ("~" for none).
    @inline(__always)
    static func lineTail(ofPCB pcb: UInt8) -> UInt8 {
        tableByte("~~06~~~~~~~~~~~~~~9?~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~@F~~~~~~~~~~~~~~IO~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~", pcb) &- 0x30
    }
}

/// Fields of an ATS (answer to RATS).
public struct ATSInfo: Sendable {
    public var tl: UInt8
    public var t0: UInt8?
    /// FSCI (frame size for proximity card integer) and the FSC it codes.
    public var fsci: UInt8
    public var fsc: Int
    public var ta: UInt8?
    public var tb: UInt8?
    public var tc: UInt8?
    /// From TB: frame waiting time integer and start-up frame guard time integer.
    public var fwi: UInt8
    public var sfgi: UInt8
    public var historical: ByteView

    public init(tl: UInt8, t0: UInt8? = nil, fsci: UInt8 = 2, fsc: Int = 32, ta: UInt8? = nil,
                tb: UInt8? = nil, tc: UInt8? = nil, fwi: UInt8 = 4, sfgi: UInt8 = 0,
                historical: ByteView = ByteView()) {
        self.tl = tl
        self.t0 = t0
        self.fsci = fsci
        self.fsc = fsc
        self.ta = ta
        self.tb = tb
        self.tc = tc
        self.fwi = fwi
        self.sfgi = sfgi
        self.historical = historical
    }

    /// TC bit 2; ISO 14443-4 defaults to "CID supported" when TC is absent.
    public var cidSupported: Bool { ((tc ?? 0x02) & 0x02) != 0 }
    /// TC bit 1; defaults to "NAD not supported".
    public var nadSupported: Bool { ((tc ?? 0x00) & 0x01) != 0 }
}

/// Fields of an ATQB (answer to REQB/WUPB).
public struct ATQBInfo: Sendable {
    public var pupi: ByteView
    public var applicationData: ByteView
    public var protocolInfo: ByteView
    /// Decoded protocol info: maximum frame size, ISO 14443-4 compliance, FWI, CID/NAD support.
    public var maxFrameSize: Int
    public var isoDEP: Bool
    public var fwi: UInt8
    public var cidSupported: Bool
    public var nadSupported: Bool
    /// From the fourth protocol info byte of an extended ATQB.
    public var sfgi: UInt8?

    public init(pupi: ByteView, applicationData: ByteView, protocolInfo: ByteView, maxFrameSize: Int,
                isoDEP: Bool, fwi: UInt8, cidSupported: Bool, nadSupported: Bool, sfgi: UInt8? = nil) {
        self.sfgi = sfgi
        self.pupi = pupi
        self.applicationData = applicationData
        self.protocolInfo = protocolInfo
        self.maxFrameSize = maxFrameSize
        self.isoDEP = isoDEP
        self.fwi = fwi
        self.cidSupported = cidSupported
        self.nadSupported = nadSupported
    }
}

public enum LinkInfo: Sendable {
    /// Not recognised at the link layer (also: raw proprietary commands).
    case unknown
    /// Field on/off events carry no frame.
    case event

    // NFC-A (ISO 14443-3 A)
    case reqa
    case wupa
    case atqa(UInt16)
    /// 93/95/97 with NVB < 0x70: anticollision at cascade `level` (1...3).
    case anticollision(level: UInt8, nvb: UInt8)
    /// The card's answer to anticollision: UID CLn bytes and BCC verdict.
    case anticollisionAnswer(level: UInt8, uidPart: ByteView, bccOK: Bool)
    /// 93/95/97 70: SELECT at cascade `level`.
    case select(level: UInt8, uidPart: ByteView, bccOK: Bool)
    /// SAK. `uid` is set when the SAK says the UID is complete and all levels were seen.
    case sak(value: UInt8, level: UInt8, uidComplete: Bool, isoDEP: Bool, uid: UIDBytes?)
    case hlta
    case rats(fsdi: UInt8, fsd: Int, cid: UInt8)
    case ats(ATSInfo)
    case pps(cid: UInt8, pps0: UInt8?, pps1: UInt8?)
    case ppsAnswer(cid: UInt8)

    // NFC-B (ISO 14443-3 B)
    case reqb(wakeup: Bool, afi: UInt8, param: UInt8, slots: Int)
    case atqb(ATQBInfo)
    case attrib(pupi: ByteView, param1: UInt8, param2: UInt8, param3: UInt8, param4: UInt8, higherLayer: ByteView)
    case attribAnswer(mbli: UInt8, cid: UInt8, higherLayer: ByteView)
    case hltb(pupi: ByteView)
    case hltbAnswer
    /// ST SR family (SRI512, SRIX4K...): CRC_B frames with ST's own commands.
    case stsr(STSRInfo)

    // ISO 14443-4 (ISO-DEP)
    case block(ISODEPBlock)

    /// Apple Enhanced Contactless Polling frame (reader → phone).
    case appleECP(AppleECPInfo)

    /// A Type 2 Tag (MIFARE Ultralight family, NTAG) command or the card's answer to one.
    case t2t(T2TFrame)

    /// A MIFARE Classic authentication step, plaintext command or answer, or Crypto1 ciphertext.
    case mifareClassic(MFCFrame)

    // NFC-F (JIS X 6319-4)
    case felica(FeliCaFrameInfo)

    // NFC-V (ISO 15693)
    case nfcv(NFCVInfo)

    /// An LLCP PDU (link type 245).
    case llcp(LLCPPDU)

    /// An NFC-DEP (ISO 18092) frame in NFC-A or NFC-F.
    case nfcDEP(NFCDEPFrame)

    /// A contact smart-card frame (GSMTAP SIM trace, PC/SC log), filled by its source.
    case smartCard(SmartCardFrame)
    /// A USB CCID message of a contact or contactless smart-card reader (usbmon captures).
    case ccid(CCIDMessage)
}

extension LinkInfo {
    /// The frame ends an ISO-DEP session: a new activation, a halt, or DESELECT.
    /// Whatever exchange was pending belongs to the session before it.
    public var endsISODEPSession: Bool {
        switch self {
        case .reqa, .wupa, .hlta, .rats, .reqb, .attrib, .hltb: true
        case .block(let b): b.kind == .s && b.sType == .deselect
        default: false
        }
    }
}
