// Link-layer activations as exchanges of a diff: a card that answered its
// activation (NFC-A: ATQA, a complete SAK and, when the reader asked, the ATS;
// NFC-B: ATQB and the ATTRIB answer; NFC-V: the INVENTORY answer) becomes one
// `activation` exchange built from the frame records `decode --format jsonl`
// writes, so its field names are the frames' (`atqa`, `sak`, `uid`, `ats/fsc`,
// `pupi`, `dsfid` ...). FeliCa polling is already a `felica` record.
//
// An activation that did not finish (an ATQA with no complete SAK, polling that
// nobody answered, a collision) is link-layer noise and not compared.

/// Assembles activations from frame records, one at a time, in capture order.
struct DiffActivationBuilder {
    private var members: [(String, JSONValue)] = []
    private var tech = ""
    private var frames: [JSONValue] = []
    /// The card answered enough to be an activation.
    private var complete = false
    /// More frames may still belong to it (a RATS/ATS or ATTRIB after the SAK/ATQB).
    private var open = false

    /// Keys of a frame record that say how it was carried, not what the card is.
    private static let carriage: Set<String> = [
        "type", "n", "time", "dir", "tech", "hex", "crc", "info", "bits", "parity_error",
        "sniffer_crc_error", "recovered", "error", "line", "offset", "level", "uid_complete", "flags",
        "error_flag", "command", "command_code", "data",
    ]

    /// Whether a frame record may belong to an activation (cheap check on its keys).
    static func isActivationFrame(_ record: JSONValue) -> Bool {
        guard record["dir"]?.stringValue == "card" || record["dir"]?.stringValue == "reader" else { return false }
        return record["atqa"] != nil || record["sak"] != nil || record["fsci"] != nil || record["pupi"] != nil
            || record["mbli"] != nil || record["fsdi"] != nil
            || (record["tech"]?.stringValue == "nfc-v" && record["command"]?.stringValue == "inventory")
    }

    /// Feeds one frame record; returns a finished activation it closed, if any.
    mutating func frame(_ record: JSONValue) -> JSONValue? {
        guard Self.isActivationFrame(record) else { return other() }
        let tech = record["tech"]?.stringValue ?? "?"
        let fromCard = record["dir"]?.stringValue == "card"
        var finished: JSONValue?
        if fromCard, record["atqa"] != nil {
            finished = flush()
            start(tech, record)
            add(record, under: nil)
        } else if fromCard, record["sak"] != nil {
            guard tech == self.tech, !members.isEmpty else { return flush() }
            note(record)
            if record["uid_complete"].map({ if case .bool(true) = $0 { true } else { false } }) == true {
                add(record, under: nil)
                complete = true
                open = true
            }
        } else if !fromCard, record["fsdi"] != nil {
            // RATS: the ATS that follows belongs to this activation.
            if complete, tech == self.tech { note(record) } else { finished = flush() }
        } else if fromCard, record["fsci"] != nil, tech == "nfc-a" {
            if complete, open, self.tech == "nfc-a" {
                note(record)
                add(record, under: "ats")
                open = false
                finished = flush()
            }
        } else if fromCard, record["pupi"] != nil, record["protocol_info"] != nil {
            finished = flush()
            start(tech, record)
            add(record, under: nil)
            complete = true
            open = true
        } else if fromCard, record["mbli"] != nil {
            if complete, open, self.tech == "nfc-b" {
                note(record)
                add(record, under: "attrib")
                finished = flush()
            }
        } else if !fromCard {
            // An ATTRIB or other reader frame that the activation may still include.
            if complete, open, tech == self.tech, record["pupi"] != nil { note(record) } else { finished = flush() }
        } else if tech == "nfc-v", record["uid"] != nil {
            finished = flush()
            start(tech, record)
            add(record, under: nil)
            complete = true
        }
        return finished
    }

    /// Any other frame or record: a finished activation ends here.
    mutating func other() -> JSONValue? {
        // An ATQA whose SAK has not come yet: anticollision frames go on.
        complete ? flush() : nil
    }

    /// The input ended.
    mutating func end() -> JSONValue? { flush() }

    private mutating func start(_ tech: String, _ record: JSONValue) {
        self.tech = tech
        members = []
        frames = []
        complete = false
        open = false
        note(record)
    }

    private mutating func note(_ record: JSONValue) {
        if let n = record["n"] { frames.append(n) }
    }

    private mutating func add(_ record: JSONValue, under key: String?) {
        guard let all = record.members else { return }
        var kept: [(String, JSONValue)] = []
        for (k, v) in all where !Self.carriage.contains(k) {
            if k == "uid", key == nil, Self.isRandomUID(v) {
                kept.append(("random_uid", v))
            } else {
                kept.append((k, v))
            }
        }
        if let key {
            members.append((key, .object(kept)))
        } else {
            members.append(contentsOf: kept)
        }
    }

    /// ISO/IEC 14443-3 (6.5.4): a single-size UID whose first byte is 08h is a
    /// random number the PICC draws anew (phones emulating a card do this), not
    /// an identity; it is named `random_uid` and belongs to `--ignore-volatile`.
    static func isRandomUID(_ v: JSONValue) -> Bool {
        guard let s = v.stringValue, s.utf8.count == 8 else { return false }
        return s.hasPrefix("08")
    }

    private mutating func flush() -> JSONValue? {
        defer {
            members = []
            frames = []
            complete = false
            open = false
            tech = ""
        }
        guard complete else { return nil }
        var record: [(String, JSONValue)] = [("type", .string("activation")), ("tech", .string(tech))]
        record.append(contentsOf: members)
        record.append(("frames", .array(frames)))
        return .object(record)
    }
}
