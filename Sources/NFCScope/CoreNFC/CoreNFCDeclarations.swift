// What an app declares to Core NFC, read from its Info.plist and entitlements
// (property lists, XML or binary), and the mistakes in those declarations.

public struct CoreNFCDeclarations: Sendable {
    public static let aidKey = "com.apple.developer.nfc.readersession.iso7816.select-identifiers"
    public static let systemCodeKey = "com.apple.developer.nfc.readersession.felica.systemcodes"
    public static let formatsKey = "com.apple.developer.nfc.readersession.formats"
    public static let usageKey = "NFCReaderUsageDescription"

    /// The AIDs Core NFC would SELECT, in declaration order: well-formed, first
    /// occurrence only (a malformed entry is listed in `mistakes` and selects nothing).
    public var aids: [[UInt8]] = []
    /// The declared FeliCa system codes, well-formed, first occurrence only.
    public var systemCodes: [UInt16] = []
    /// The formats entitlement's values; nil when no entitlements file was given.
    public var formats: [String]?
    /// Whether the Info.plist has a non-empty NFCReaderUsageDescription.
    public var hasUsageDescription = false
    /// Declared payment AIDs (well-formed, but Core NFC selects none of them).
    public var paymentAIDs: [[UInt8]] = []
    public var mistakes: [CoreNFCReason] = []

    public init() {}

    /// Reads the declarations from the Info.plist (and entitlements) values; `registry`
    /// tells which AIDs are payment applications.
    public init(infoPlist: PropertyListValue, entitlements: PropertyListValue?, registry: Registry) {
        if case .string(let s) = infoPlist[Self.usageKey] ?? .bool(false), !s.trimmingSpace.isEmpty {
            hasUsageDescription = true
        } else {
            mistakes.append(CoreNFCReason("usage-description-missing",
                "\(Self.usageKey) is missing or empty: a tag reader session requires a non-empty usage description",
                .tagReaderSession))
        }
        readAIDs(infoPlist[Self.aidKey], registry: registry)
        readSystemCodes(infoPlist[Self.systemCodeKey])
        if let entitlements {
            var values: [String] = []
            switch entitlements[Self.formatsKey] {
            case .array(let items)?:
                for item in items {
                    if case .string(let s) = item { values.append(s) } else {
                        mistakes.append(CoreNFCReason("formats-entry-type",
                            "\(Self.formatsKey) holds a \(item.typeName), not a string", .tagReaderSession))
                    }
                }
            case let other?:
                mistakes.append(CoreNFCReason("formats-type",
                    "\(Self.formatsKey) is a \(other.typeName), not an array of strings", .tagReaderSession))
            case nil:
                mistakes.append(CoreNFCReason("formats-missing",
                    "the entitlements have no \(Self.formatsKey): Core NFC invalidates a tag reader session without it (security violation)",
                    .tagReaderSession))
            }
            formats = values
            if entitlements[Self.formatsKey] != nil, !values.contains("TAG") {
                mistakes.append(CoreNFCReason("formats-tag-missing",
                    "\(Self.formatsKey) is [\(values.joined(separator: ", "))] without TAG, the format NFCTagReaderSession needs: the session is invalidated (security violation)",
                    .tagReaderSession))
            }
        }
        // Keys an app sometimes puts in the wrong file: Core NFC reads the AIDs and
        // system codes from Info.plist.
        if let entitlements {
            for key in [Self.aidKey, Self.systemCodeKey] where entitlements[key] != nil {
                mistakes.append(CoreNFCReason("key-in-entitlements",
                    "\(key) is in the entitlements: Core NFC reads it from Info.plist", .tagReaderSession))
            }
        }
    }

    /// Whether the entitlements (when given) allow a tag reader session.
    public var allowsTagReaderSession: Bool { formats.map { $0.contains("TAG") } ?? true }

    private mutating func readAIDs(_ value: PropertyListValue?, registry: Registry) {
        for (n, text, parsed) in hexEntries(value, key: Self.aidKey, entry: "AID entry", rule: "aid", source: .selectIdentifiersKey) {
            let bytes: [UInt8]
            switch parsed {
            case .success(let b): bytes = b
            case .failure(let mistake): mistakes.append(mistake); continue
            }
            guard (5...16).contains(bytes.count) else {
                mistakes.append(CoreNFCReason("aid-length",
                    "AID entry \(n) \"\(text)\" is \(bytes.count) bytes, not 5 to 16", .iso7816AID))
                continue
            }
            if aids.contains(bytes) || paymentAIDs.contains(bytes) {
                mistakes.append(CoreNFCReason("aid-duplicate",
                    "AID entry \(n) \"\(text)\" repeats an earlier entry (Core NFC tries AIDs in order: the repeat is never reached first)",
                    .iso7816Tag))
                continue
            }
            if let entry = registry.aid(bytes), entry.kind == .emvPayment {
                paymentAIDs.append(bytes)
                mistakes.append(CoreNFCReason("aid-payment",
                    "AID entry \(n) \"\(text)\" is a payment application (\(entry.name)): payment AIDs cannot be declared for a reader session and select nothing; Apple reads payment tags only with NFCPaymentTagReaderSession (iOS 26+, EU)",
                    .talk))
                continue
            }
            aids.append(bytes)
        }
    }

    private mutating func readSystemCodes(_ value: PropertyListValue?) {
        for (n, text, parsed) in hexEntries(value, key: Self.systemCodeKey, entry: "system code entry", rule: "system-code",
                                            source: .feliCaSystemCodesKey) {
            let bytes: [UInt8]
            switch parsed {
            case .success(let b): bytes = b
            case .failure(let mistake): mistakes.append(mistake); continue
            }
            guard bytes.count == 2 else {
                mistakes.append(CoreNFCReason("system-code-length",
                    "system code entry \(n) \"\(text)\" is \(bytes.count) bytes, not 2", .feliCaSystemCodesKey))
                continue
            }
            if bytes[0] == 0xFF || bytes[1] == 0xFF {
                mistakes.append(CoreNFCReason("system-code-wildcard",
                    "system code entry \(n) \"\(text)\" is a wildcard: each system code must be a discrete value, the wild card value (FF) is not allowed",
                    .feliCaSystemCodesKey))
                continue
            }
            let code = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            if systemCodes.contains(code) {
                mistakes.append(CoreNFCReason("system-code-duplicate",
                    "system code entry \(n) \"\(text)\" repeats an earlier entry", .feliCaSystemCodesKey))
                continue
            }
            systemCodes.append(code)
        }
    }

    /// The entries of an array of hex strings, in order: a well-formed one as its index,
    /// text and bytes, any other as its mistake (so mistakes keep the entries' order).
    private mutating func hexEntries(_ value: PropertyListValue?, key: String, entry: String, rule: String,
                                     source: CoreNFCSource) -> [(Int, String, Result<[UInt8], CoreNFCReason>)] {
        guard let value else { return [] }
        guard case .array(let items) = value else {
            mistakes.append(CoreNFCReason(rule + "s-type", "\(key) is a \(value.typeName), not an array of strings", source))
            return []
        }
        return items.enumerated().map { n, item in
            guard case .string(let text) = item else {
                return (n, "", .failure(CoreNFCReason(rule + "-type", "\(entry) \(n) is a \(item.typeName), not a string", source)))
            }
            return (n, text, Self.hexBytes(text, entry: "\(entry) \(n)", source: source))
        }
    }

    /// Hex digits to bytes, reporting odd lengths and other characters.
    static func hexBytes(_ text: String, entry: String, source: CoreNFCSource) -> Result<[UInt8], CoreNFCReason> {
        var out: [UInt8] = []
        var high: UInt8?
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            default:
                return .failure(CoreNFCReason("hex-malformed",
                    "\(entry) \"\(text)\" is not hexadecimal (character '\(Character(Unicode.Scalar(c)))')", source))
            }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        if high != nil {
            return .failure(CoreNFCReason("hex-odd-length",
                "\(entry) \"\(text)\" has an odd number of hex digits (\(text.utf8.count))", source))
        }
        if out.isEmpty {
            return .failure(CoreNFCReason("hex-empty", "\(entry) is empty", source))
        }
        return .success(out)
    }
}
