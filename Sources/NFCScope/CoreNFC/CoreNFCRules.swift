// Where each rule of the `corenfc` check comes from. A verdict's reasons name one
// of these; behaviour Apple does not document is marked `undocumented` instead of
// being guessed (docs/corenfc.md lists every rule with its source).

/// The source of a rule, as printed after each reason.
public enum CoreNFCSource: String, Sendable, CaseIterable {
    /// NFCISO7816Tag: "the session performs a SELECT command for each application
    /// identifier ... in the order in which they appear in the array"; the delegate is
    /// called "after the first successful SELECT command"; `initialSelectedAID`.
    case iso7816Tag = "Apple, Core NFC: NFCISO7816Tag"
    /// The Info.plist key that lists the AIDs.
    case selectIdentifiersKey = "Apple, Info.plist key com.apple.developer.nfc.readersession.iso7816.select-identifiers"
    /// "Each system code must be a discrete value. The wild card value (0xFF) isn't allowed."
    case feliCaSystemCodesKey = "Apple, Info.plist key com.apple.developer.nfc.readersession.felica.systemcodes"
    /// `currentSystemCode`: "The system code matches one of the entries" of the key.
    case feliCaTag = "Apple, Core NFC: NFCFeliCaTag.currentSystemCode"
    /// `.iso14443`, `.iso15693`, `.iso18092`.
    case pollingOption = "Apple, Core NFC: NFCTagReaderSession.PollingOption"
    /// The formats entitlement and a non-empty NFCReaderUsageDescription are required;
    /// a missing entitlement invalidates the session with a security violation.
    case tagReaderSession = "Apple, Core NFC: NFCTagReaderSession"
    /// Apple's PrivacyPrompts sample (NFCAccessProvider.swift): without
    /// NFCReaderUsageDescription "the app will exit upon starting a NFC session".
    case privacyPromptsSample = "Apple, PrivacyPrompts sample code (NFCAccessProvider.swift)"
    case miFareTag = "Apple, Core NFC: NFCMiFareTag, NFCMiFareFamily"
    case iso15693Tag = "Apple, Core NFC: NFCISO15693Tag"
    case ndefTag = "Apple, Core NFC: NFCNDEFTag.readNDEF"
    /// Payment tags are read only by NFCPaymentTagReaderSession (iOS 26+, EU).
    case paymentTagReaderSession = "Apple, Core NFC: NFCPaymentTagReaderSession"
    /// Rules known from the iOSDC Japan 2022 talk, not stated by Apple.
    case talk = "iOSDC Japan 2022 talk \"Demystify Core NFC\" (treastrain), not Apple's documentation"
    case iso7816AID = "ISO/IEC 7816-4/7816-5: an AID is 5 to 16 bytes (5-byte RID, PIX up to 11 bytes)"
    case feliCaPolling = "JIS X 6319-4 (FeliCa): a polling system code byte FF is a wildcard"
    /// What the capture itself shows (answers, SAK, polling responses).
    case capture = "the capture"
    case undocumented
}

/// One reason of a verdict or one plist mistake: a rule name (stable, for scripts),
/// the sentence, and where the rule comes from.
public struct CoreNFCReason: Error, Sendable, Equatable {
    public var rule: String
    public var text: String
    public var source: CoreNFCSource

    public init(_ rule: String, _ text: String, _ source: CoreNFCSource) {
        self.rule = rule
        self.text = text
        self.source = source
    }
}

/// Core NFC's tag reader polling options (`NFCTagReaderSession.PollingOption`).
public struct CoreNFCPolling: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let iso14443 = CoreNFCPolling(rawValue: 1)
    public static let iso18092 = CoreNFCPolling(rawValue: 2)
    public static let iso15693 = CoreNFCPolling(rawValue: 4)
    public static let all: CoreNFCPolling = [.iso14443, .iso18092, .iso15693]

    /// `iso14443,iso18092,iso15693` (any order, any subset); nil for an unknown name.
    public init?(list: String) {
        var set: CoreNFCPolling = []
        for name in list.split(separator: ",") {
            guard let one = CoreNFCPolling(name: String(name)) else { return nil }
            set.insert(one)
        }
        guard !set.isEmpty else { return nil }
        self = set
    }

    public init?(name: String) {
        switch name.hasPrefix(".") ? String(name.dropFirst()) : name {
        case "iso14443": self = .iso14443
        case "iso18092": self = .iso18092
        case "iso15693": self = .iso15693
        default: return nil
        }
    }

    /// The option's name as Core NFC spells it (one option only).
    public var name: String {
        switch self {
        case .iso14443: "iso14443"
        case .iso18092: "iso18092"
        case .iso15693: "iso15693"
        default: [CoreNFCPolling.iso14443, .iso18092, .iso15693].filter { contains($0) }.map(\.name).joined(separator: ",")
        }
    }

    /// The option that polls for a technology: NFC-A/B are ISO/IEC 14443, NFC-F is
    /// ISO/IEC 18092 (JIS X 6319-4), NFC-V is ISO/IEC 15693.
    public static func detecting(_ tech: Tech) -> CoreNFCPolling? {
        switch tech {
        case .nfcA, .nfcB: .iso14443
        case .nfcF: .iso18092
        case .nfcV: .iso15693
        case .unknown: nil
        }
    }
}
