// What Core NFC's tag reader session would do with one card of a capture, and why:
// the polling option that detects it, the tag type it surfaces, whether the app's
// delegate gets it, the AID Core NFC selects or the system code it polls, each
// step with the rule and its source. What Apple does not document is said to be
// undocumented, not guessed.

/// Core NFC's tag types (`NFCTag` cases).
public enum CoreNFCTagType: String, Sendable {
    case iso7816, feliCa, iso15693, miFare
}

public struct CoreNFCVerdict: Sendable {
    /// First and last frame of the card's session; nil for a card dump.
    public var frames: (first: Int, last: Int)?
    /// The polling option that detects the card (whether or not the session uses it).
    public var polling: CoreNFCPolling?
    public var tagType: CoreNFCTagType?
    /// True: the delegate gets the tag; false: it would not; nil: Apple does not document it.
    public var delivered: Bool?
    /// `initialSelectedAID`.
    public var selectedAID: [UInt8]?
    /// `currentSystemCode`.
    public var systemCode: UInt16?
    /// "readable", "empty", "incomplete", or nil when the capture reads no NDEF from the card.
    public var ndef: String?
    public var reasons: [CoreNFCReason] = []

    /// Judges one card against the app's declarations and the session's polling options.
    public init(_ card: CardObservation, declarations d: CoreNFCDeclarations, polling session: CoreNFCPolling,
                registry: Registry) {
        if let first = card.firstFrame, let last = card.lastFrame { frames = (first, last) }
        // ISO-DEP blocks without the activation (a log that starts at the APDUs) are
        // ISO/IEC 14443-4 all the same, over NFC-A or NFC-B.
        let tech = card.tech == .unknown && card.isoDEP ? Tech.nfcA : card.tech
        polling = CoreNFCPolling.detecting(tech)
        let techName = card.tech == .unknown && card.isoDEP ? "ISO-DEP (ISO/IEC 14443-4, A or B not shown)" : Self.techName(card.tech)
        var blocked = false
        if let option = polling {
            if session.contains(option) {
                reasons.append(CoreNFCReason("polling",
                    "\(techName) card: detected by .\(option.name) polling", .pollingOption))
            } else {
                blocked = true
                reasons.append(CoreNFCReason("polling-missing",
                    "\(techName) card: the session polls .\(session.name) only; .\(option.name) would detect it",
                    .pollingOption))
            }
        } else {
            reasons.append(CoreNFCReason("technology-unknown",
                "the capture does not say which technology the card uses", .capture))
        }
        if !d.allowsTagReaderSession {
            blocked = true
            reasons.append(CoreNFCReason("formats-tag-missing",
                "the formats entitlement lacks TAG: the tag reader session is invalidated before it polls", .tagReaderSession))
        }
        if !d.hasUsageDescription {
            blocked = true
            reasons.append(CoreNFCReason("usage-description-missing",
                "no NFCReaderUsageDescription: a reader session requires one, and without it the app exits when it starts the session",
                .privacyPromptsSample))
        }
        var judged = card
        judged.tech = tech
        judgeTagType(judged, d, registry)
        judgeNDEF(card)
        if blocked { delivered = false }
        if delivered != true { selectedAID = nil; systemCode = nil }
    }

    static func techName(_ tech: Tech) -> String {
        switch tech {
        case .nfcA: "NFC-A (ISO/IEC 14443-A)"
        case .nfcB: "NFC-B (ISO/IEC 14443-B)"
        case .nfcF: "NFC-F (FeliCa, JIS X 6319-4)"
        case .nfcV: "NFC-V (ISO/IEC 15693)"
        case .unknown: "unknown-technology"
        }
    }

    private mutating func judgeTagType(_ card: CardObservation, _ d: CoreNFCDeclarations, _ registry: Registry) {
        switch card.tech {
        case .nfcA, .nfcB:
            if card.isoDEP {
                judgeISO7816(card, d, registry)
            } else if card.tech == .nfcB {
                delivered = nil
                reasons.append(CoreNFCReason("nfcb-not-isodep",
                    card.atqbNotISODEP ? "NFC-B card whose ATQB says it is not ISO 14443-4 compliant: whether Core NFC surfaces it, and as what, is undocumented"
                                       : "NFC-B card without ISO-DEP in the capture: whether Core NFC surfaces it is undocumented",
                    .undocumented))
            } else {
                judgeNFCA(card)
            }
        case .nfcF:
            judgeFeliCa(card, d)
        case .nfcV:
            tagType = .iso15693
            delivered = true
            reasons.append(CoreNFCReason("iso15693",
                "ISO 15693 tag: Core NFC surfaces it as .iso15693 (NFCISO15693Tag); no declaration is needed", .iso15693Tag))
        case .unknown:
            delivered = nil
        }
    }

    private mutating func judgeNFCA(_ card: CardObservation) {
        guard card.sak != nil || card.type2Commands || card.mifareClassic else {
            delivered = nil
            reasons.append(CoreNFCReason("sak-not-seen",
                "the capture does not show the card's SAK: what kind of NFC-A tag it is (and so what Core NFC surfaces) is unknown",
                .capture))
            return
        }
        let sak = card.sak ?? 0
        let sakText = card.sak.map { "SAK \(hex2(Int($0)))" } ?? "SAK not seen"
        // SAK bit 4 (08) with bit 6 clear: MIFARE Classic (NXP AN10833); 00: Type 2 Tag.
        if card.mifareClassic || (card.sak != nil && sak & 0x08 != 0) {
            delivered = nil
            reasons.append(CoreNFCReason("mifare-classic",
                "MIFARE Classic (\(sakText)): Apple's MIFARE families are Ultralight, Plus, DESFire and unknown; whether Core NFC surfaces a Classic tag is undocumented",
                .undocumented))
            return
        }
        tagType = .miFare
        delivered = true
        reasons.append(CoreNFCReason("type2",
            "NFC-A tag without ISO-DEP (\(sakText)\(card.type2Commands ? ", Type 2 Tag commands answered" : "")): Core NFC surfaces it as .miFare (NFCMiFareTag); no declaration is needed",
            .miFareTag))
        reasons.append(CoreNFCReason("mifare-family",
            "which mifareFamily Core NFC reports for it (.ultralight is \"MIFARE Ultralight series\") is undocumented for other Type 2 tags",
            .undocumented))
    }

    private mutating func judgeISO7816(_ card: CardObservation, _ d: CoreNFCDeclarations, _ registry: Registry) {
        tagType = .iso7816
        if d.aids.isEmpty && d.paymentAIDs.isEmpty {
            notDelivered(CoreNFCReason("no-aids",
                "ISO-DEP card, but the Info.plist declares no AID (\(CoreNFCDeclarations.aidKey)): there is nothing to SELECT, and the delegate is called only after a successful SELECT",
                .iso7816Tag))
            return
        }
        for aid in d.paymentAIDs {
            let name = registry.aid(aid)?.name ?? "payment application"
            reasons.append(CoreNFCReason("aid-payment",
                "\(aidHex(aid)) (\(name)) is a payment AID: it cannot be declared and selects nothing\(answerText(aid, card))",
                .talk))
        }
        var unseenBefore: [[UInt8]] = []
        for aid in d.aids {
            let answers = card.selects.filter { $0.aid == aid }
            if answers.contains(where: { $0.sw == 0x9000 }) {
                selectedAID = aid
                delivered = true
                reasons.append(CoreNFCReason("aid-selected",
                    "\(aidHex(aid))\(aidName(aid, registry)) answered 9000 to SELECT: the first declared AID that does, so Core NFC would select it and it would become initialSelectedAID",
                    .iso7816Tag))
                if !unseenBefore.isEmpty {
                    reasons.append(CoreNFCReason("aid-earlier-not-seen",
                        "declared before it and not seen in the capture: \(unseenBefore.map(aidHex).joined(separator: ", ")); if the card has one of them, Core NFC would select that one instead",
                        .iso7816Tag))
                }
                let later = d.aids.drop { $0 != aid }.dropFirst().filter { a in card.selects.contains { $0.aid == a && $0.sw == 0x9000 } }
                if !later.isEmpty {
                    reasons.append(CoreNFCReason("aid-also-answered",
                        "also answered 9000, declared later so not selected first: \(later.map(aidHex).joined(separator: ", "))",
                        .iso7816Tag))
                }
                return
            }
            if let answer = answers.last {
                let sw = answer.sw.map { code4(Int($0)) } ?? "nothing (no answer in the capture)"
                reasons.append(CoreNFCReason("aid-refused",
                    "\(aidHex(aid))\(aidName(aid, registry)): the card answered \(sw) to SELECT, not 9000", .capture))
            } else {
                unseenBefore.append(aid)
                var text = "\(aidHex(aid))\(aidName(aid, registry)): not seen in the capture, counted as not answered"
                if let listed = card.ppseAIDs {
                    text += listed.contains(aid)
                        ? " (the card's PPSE directory lists it, so the card may well have it)"
                        : " (the card's PPSE directory, which lists its payment applications, names \(listed.isEmpty ? "none" : listed.map(aidHex).joined(separator: ", ")) and not this one)"
                }
                reasons.append(CoreNFCReason("aid-not-seen", text, .capture))
            }
        }
        if card.desfireCommands || card.mifarePlusCommands {
            // Core NFC has MIFARE families for these chips: whether it surfaces one as
            // .miFare when no declared AID is selected is not documented.
            let family = card.desfireCommands ? "DESFire" : "Plus"
            delivered = nil
            tagType = nil
            reasons.append(CoreNFCReason("no-aid-answered",
                "no declared AID answered 9000: Core NFC calls the delegate with an .iso7816 tag only after a successful SELECT of a declared AID",
                .iso7816Tag))
            reasons.append(CoreNFCReason("mifare-\(family.lowercased())",
                "the capture shows MIFARE \(family) commands, and NFCMiFareFamily has .\(family.lowercased()): whether Core NFC then surfaces the card as .miFare instead is undocumented",
                .undocumented))
            return
        }
        notDelivered(CoreNFCReason("no-aid-answered",
            "no declared AID answered 9000: Core NFC calls the delegate only after a successful SELECT of a declared AID",
            .iso7816Tag))
    }

    /// Nothing declared matches the card: the app's delegate is not called for it.
    private mutating func notDelivered(_ why: CoreNFCReason) {
        delivered = false
        reasons.append(why)
        reasons.append(CoreNFCReason("not-delivered",
            "the app sees nothing of this card (Apple does not document the case where nothing declared matches)", .talk))
    }

    private func answerText(_ aid: [UInt8], _ card: CardObservation) -> String {
        guard let answer = card.selects.last(where: { $0.aid == aid }) else { return "" }
        return " (the card answered \(answer.sw.map { code4(Int($0)) } ?? "nothing") to the sniffed reader's SELECT)"
    }

    private func aidName(_ aid: [UInt8], _ registry: Registry) -> String {
        registry.aid(aid).map { " (\($0.name))" } ?? ""
    }

    private mutating func judgeFeliCa(_ card: CardObservation, _ d: CoreNFCDeclarations) {
        tagType = .feliCa
        if d.systemCodes.isEmpty {
            notDelivered(CoreNFCReason("no-system-codes",
                "FeliCa card, but the Info.plist declares no system code (\(CoreNFCDeclarations.systemCodeKey)): currentSystemCode must match a declared code",
                .feliCaTag))
            return
        }
        var answeredCodes: [UInt16] = []
        for code in d.systemCodes {
            let polled = card.pollings.contains { $0.answered && $0.systemCode == code }
            let reported = card.pollings.contains { $0.answered && $0.reportedSystemCode == code }
            let listed = card.systemCodeList?.contains(code) ?? false
            if polled || reported || listed {
                answeredCodes.append(code)
                let how = polled ? "answered a Polling for it" : reported ? "reported it in a Polling answer" : "lists it in its Request System Code answer"
                reasons.append(CoreNFCReason("system-code-answered", "\(code4(Int(code))): the card \(how)", .capture))
            } else {
                var text = "\(code4(Int(code))): not seen in the capture, counted as not answered"
                let seen = Set(card.pollings.filter(\.answered).compactMap { $0.reportedSystemCode ?? $0.systemCode }
                    .filter { $0 & 0xFF00 != 0xFF00 && $0 & 0x00FF != 0x00FF })
                if let list = card.systemCodeList {
                    text += " (the card's Request System Code answer lists \(list.map { code4(Int($0)) }.joined(separator: ", ")))"
                } else if !seen.isEmpty {
                    text += " (the card answered Polling for \(seen.sorted().map { code4(Int($0)) }.joined(separator: ", ")) only)"
                }
                reasons.append(CoreNFCReason("system-code-not-seen", text, .capture))
            }
        }
        guard let first = answeredCodes.first else {
            notDelivered(CoreNFCReason("no-system-code-answered",
                "no declared system code answered: currentSystemCode must be one of the declared codes", .feliCaTag))
            return
        }
        delivered = true
        systemCode = first
        reasons.append(CoreNFCReason("system-code-selected",
            "surfaced as .feliCa with currentSystemCode \(code4(Int(first)))", .feliCaTag))
        if answeredCodes.count > 1 {
            reasons.append(CoreNFCReason("system-code-order",
                "several declared codes answered (\(answeredCodes.map { code4(Int($0)) }.joined(separator: ", "))): the order in which Core NFC polls them, so which becomes currentSystemCode, is undocumented; the first declared is shown",
                .undocumented))
        }
    }

    private mutating func judgeNDEF(_ card: CardObservation) {
        guard !card.ndef.isEmpty else { return }
        if let whole = card.ndef.first(where: \.complete), whole.messageLength == 0 {
            ndef = "empty"
            reasons.append(CoreNFCReason("ndef-empty",
                "the tag's NDEF TLV holds an empty message (\(whole.platform)): what readNDEF() returns for it is undocumented",
                .undocumented))
        } else if let whole = card.ndef.first(where: \.complete) {
            ndef = "readable"
            reasons.append(CoreNFCReason("ndef-readable",
                "the tag's NDEF message (\(whole.platform), \(whole.messageLength) bytes) was read whole in the capture: readNDEF() has a message to return",
                .ndefTag))
        } else {
            ndef = "incomplete"
            let problem = card.ndef.compactMap(\.problem).first ?? "not assembled"
            reasons.append(CoreNFCReason("ndef-incomplete",
                "the capture reads the tag's NDEF only in part (\(problem)): whether Core NFC can read it is not shown",
                .capture))
        }
    }
}

func aidHex(_ bytes: [UInt8]) -> String {
    bytes.map { hex2(Int($0)) }.joined()
}

func code4(_ v: Int) -> String { hex2(v >> 8) + hex2(v & 0xFF) }
