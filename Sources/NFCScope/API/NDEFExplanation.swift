// An NDEF message explained as plain values. Record fields are named as Core NFC's
// `NFCNDEFPayload` names them: typeNameFormat, type, identifier, payload.

/// An NDEF message: its records, what is wrong with it, and how nfcscope prints it.
public struct NDEFExplanation: Sendable {
    /// One record, chunks joined (Core NFC joins them too).
    public struct Record: Sendable, Equatable {
        /// The TNF field (NDEF 1.0 section 3.2.6); `typeNameFormat.coreNFCName` is the
        /// name of the matching `NFCTypeNameFormat` case.
        public var typeNameFormat: NDEFTypeNameFormat
        /// The TYPE field ("U", "T", "Sp", a MIME type, an external type ...).
        public var type: [UInt8]
        /// The ID field; empty when the record has none (Core NFC shows empty data too).
        public var identifier: [UInt8]
        /// The whole payload.
        public var payload: [UInt8]
        /// How many chunks carried the record (1 when it was not chunked).
        public var chunkCount: Int
        /// The URI of a URI record (prefix code expanded, NFC Forum URI RTD); nil for
        /// other records or when it is not valid text.
        public var uri: String?
        /// The text of a Text record (NFC Forum Text RTD), with `textLanguage`.
        public var text: String?
        /// The language code of a Text record ("en").
        public var textLanguage: String?
    }

    /// The records, in order.
    public var records: [Record]
    /// Every problem found (offset and message), those inside nested messages included.
    public var errors: [String]
    /// The message's bytes.
    public var bytes: [UInt8]
    /// The tag's UID or IDm, when the message came from a tag in a capture that shows it.
    public var tagIdentifier: [UInt8]?
    /// The JSON line: in a capture, the `ndef` record `nfcscope decode` prints; for a
    /// message given alone, `{"type":"ndef"` with the message's members only (no
    /// source, frames or tag fields).
    public var json: String
    /// The text `nfcscope decode --format text` prints for the message.
    public var text: String

    /// Parses `bytes` as one NDEF message (what Core NFC's `NFCNDEFMessage` holds, as
    /// written on a tag or in a SNEP PUT).
    public init(message bytes: [UInt8]) {
        let json = OutputBuffer()
        let text = OutputBuffer()
        ByteView.with(bytes) { view in
            let message = NDEFMessage(parsing: view)
            json.ascii("{\"type\":\"ndef\"")
            NDEFRendering.writeJSONMembers(message, to: json, mask: false)
            json.ascii("}")
            NDEFRendering.writeText(message, to: text, indent: 0, mask: false)
        }
        self.init(bytes, tagIdentifier: nil, json: json.string, text: text.string)
    }

    init(_ bytes: ByteView, tagIdentifier: [UInt8]?, json: String, text: String) {
        self.init(bytes.array, tagIdentifier: tagIdentifier, json: json, text: text)
    }

    private init(_ bytes: [UInt8], tagIdentifier: [UInt8]?, json: String, text: String) {
        self.bytes = bytes
        self.tagIdentifier = tagIdentifier
        self.json = json
        self.text = text
        (records, errors) = ByteView.with(bytes) { view in
            let message = NDEFMessage(parsing: view)
            let records = message.records.map { r in
                var record = Record(typeNameFormat: r.tnf, type: r.type.array, identifier: r.id?.array ?? [],
                                    payload: r.payload.array, chunkCount: max(1, r.chunks.count))
                switch r.decoded {
                case .uri(let u): record.uri = u.uri
                case .text(let t):
                    record.text = t.text
                    record.textLanguage = t.language
                default: break
                }
                return record
            }
            return (records, message.errors.map(\.description))
        }
    }
}
