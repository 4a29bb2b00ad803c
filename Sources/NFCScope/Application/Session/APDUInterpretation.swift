// What the application layer made of one APDU exchange: the parsed command and
// response, which application it concerns, and the TLV structures of its data.
// The session fills one in place per exchange and the writer in use reads it
// there, so nothing of it is copied per APDU.

/// Which application decoder interpreted the exchange.
public enum ApplicationHandlerKind: UInt8, Sendable {
    /// No application-level decoding (nothing selected, or an application we only name).
    case none
    /// EMV payment applications and the PSE/PPSE directories.
    case emv
    /// Apple / Google value added services (loyalty passes).
    case vas
    /// Any other application whose data is BER-TLV.
    case tlv
    /// The NFC Forum Type 4 Tag NDEF application: its files are assembled by the
    /// Type 4 Tag stage, not read as BER-TLV.
    case ndef

    /// Whether command and response data are parsed as BER-TLV.
    /// By a mask of the raw values (emv 1, vas 2, tlv 3), inlined: a call per APDU.
    var parsesTLV: Bool { @inline(__always) get { (UInt8(0b1110) &>> rawValue) & 1 != 0 } }
}

/// Where an APDU exchange of a contact smart-card trace came from.
public enum SmartCardSource: UInt8, Sendable {
    case gsmtapSIM, pcsc

    public var jsonName: StaticString { self == .gsmtapSIM ? "gsmtap-sim" : "pcsc" }
}

public struct APDUInterpretation {
    public var exchange: ISODEPExchange
    public var command: APDUCommand?
    /// Why the command did not parse (nil when it did, or when there is none).
    public var commandError: APDUError?
    public var response: APDUResponse?
    /// The application the exchange concerns: the one being selected, or the one selected before.
    public var applicationAID: [UInt8]?
    /// The registry entry of that application: an index into `Registry.aids`.
    public var applicationIndex: Int?
    public var handler: ApplicationHandlerKind = .none
    /// Command data split by the DOL the card asked for (GET PROCESSING OPTIONS, GENERATE AC).
    public var commandDOL: DOLSplit?
    /// Which DOL split the command data (PDOL, CDOL1, CDOL2).
    public var commandDOLName: StaticString = ""
    /// Command data that is itself BER-TLV (VAS, PUT DATA, ...).
    public var commandTLV: BERTLV?
    /// Response data parsed as BER-TLV.
    public var responseTLV: BERTLV?
    /// `responseTLV` is a copy of a tree the session's parse memo kept, and these are its
    /// nodes' masks for `EMVContext.learn` and `ODAEvidence.collect` (`learnMask`,
    /// `collectMask`), found once per kept tree: the walks visit only those nodes.
    /// False whenever `responseTLV` is set otherwise.
    var responseHinted = false
    var responseLearnMask: UInt64 = 0
    var responseCollectMask: UInt64 = 0
    /// GET PROCESSING OPTIONS data parsed by the session (`gpoDataParsed`): the value of
    /// its first 83 object when that is at the top level (what the evidence keeps as the
    /// PDOL data; it parsed the data a second time).
    var gpoPDOLData: ByteView?
    var gpoDataParsed = false
    /// The exchange read as DESFire (natively framed, or ISO-wrapped with CLA 90 / SW 91xx).
    public var desfire: DESFireExchange?
    /// The exchange read as MIFARE Plus SL3 (natively framed: no APDU, no status word).
    public var mifarePlus: MIFAREPlusExchange?
    /// Whether the command and answer are a native protocol's, not ISO 7816-4 APDUs.
    public var isNative: Bool { mifarePlus != nil || desfire?.framing == .native }
    /// The session's knowledge after this exchange (currency, selected AID, DOLs):
    /// what its values are rendered with.
    public var context = EMVContext()
    /// The exchange came from a contact smart-card trace, not ISO-DEP: a SIM trace
    /// (instructions named by their UICC/SIM class) or a PC/SC log. Set by
    /// the application stages on the record they emit; nil for ISO-DEP exchanges.
    public var smartCardSource: SmartCardSource?

    init(exchange: ISODEPExchange) {
        self.exchange = exchange
    }

    /// The application's registry entry.
    public func application(in registry: Registry) -> AIDEntry? {
        applicationIndex.map { registry.aids[$0] }
    }
}
