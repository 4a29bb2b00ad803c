// Which decoder interprets the APDUs sent to an application: a dissector table
// keyed by AID prefix, filled from the registry's AID entries by their kind, so a
// user plugin that adds a payment AID also routes it to the EMV decoder.

public struct ApplicationHandlers: Sendable {
    private var table = PrefixDissectorTable<ApplicationHandlerKind>()

    public init(registry: Registry) {
        for entry in registry.aids {
            switch entry.kind {
            case .emvPayment: table.register(prefix: entry.aid, .emv)
            case .vas: table.register(prefix: entry.aid, .vas)
            default: table.register(prefix: entry.aid, .tlv)
            }
        }
    }

    /// The handler for an application, by the longest registered prefix of its AID.
    /// Unknown applications still get generic TLV decoding when their data is TLV.
    public func handler(for aid: ByteView) -> ApplicationHandlerKind {
        table.lookup(aid)?.value ?? .tlv
    }
}

