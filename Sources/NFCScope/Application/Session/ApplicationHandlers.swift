// Which decoder interprets the APDUs sent to an application, by the kind of its
// registry entry, so a user plugin that adds a payment AID also routes it to the
// EMV decoder. The registry works this out once per AID entry.

extension ApplicationHandlerKind {
    init(decoding kind: AIDKind) {
        switch kind {
        case .emvPayment: self = .emv
        case .vas: self = .vas
        case .ndef: self = .ndef
        default: self = .tlv
        }
    }
}
