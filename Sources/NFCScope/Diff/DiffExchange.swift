// What `diff` compares: the application records a decode shows in JSON Lines
// (`apdu`, `felica`, `ndef`), each read back from its own JSON and flattened into
// field paths (`tlv/77/9F36`, `blocks/090F:0/fields/balance`, `records/0/uri`).
// Derived records (`transaction`) are not compared: their content comes from the
// APDUs, so a change shows once, at its source field.

/// One leaf of a record: its path, value (compact JSON) and rendered meaning.
package struct DiffField {
    package var path: String
    package var value: String
    package var text: String?
    /// A raw byte field (`data`, `response`, a block's `hex`, a record's `payload`)
    /// that a more specific field may explain.
    package var raw: Bool
    /// The path of the object holding it and the sibling keys that explain it
    /// (`"*"`: any other sibling field).
    package var scope: String
    package var explainedBy: [String]
}

/// How a record is flattened: the keys left out unless `--link`.
package struct FlattenOptions {
    package var link = false

    package init() {}

    package static let linkKeys: Set<String> = ["frames", "frames_omitted", "wtx", "retransmissions", "crc", "time", "n"]

    /// Raw keys and the sibling keys whose fields explain them.
    package static let rawKeys: [String: [String]] = [
        "data": ["command_fields", "command_tlv"],
        "lc": ["command_fields", "command_tlv"],
        "response": ["tlv"],
        "hex": ["fields"],
        "payload": ["*"],
        "payload_length": ["*"],
    ]
}

package enum DiffFlattener {
    package static func join(_ scope: String, _ key: String) -> String { scope.isEmpty ? key : scope + "/" + key }

    /// Leaves of a record's members (its `type` left out).
    package static func flatten(_ record: JSONValue, options: FlattenOptions) -> [DiffField] {
        var fields: [DiffField] = []
        guard let members = record.members else { return fields }
        object(members.filter { $0.0 != "type" }, scope: "", options: options, into: &fields)
        return fields
    }

    private static func isTLVNode(_ members: [(String, JSONValue)]) -> Bool {
        members.first?.0 == "tag" && members.contains { $0.0 == "hex" }
    }

    private static func object(_ members: [(String, JSONValue)], scope: String, options: FlattenOptions,
                               into fields: inout [DiffField]) {
        if isTLVNode(members) {
            let node = JSONValue.object(members)
            if case .array(let children)? = node["children"] {
                array(children, scope: scope, options: options, into: &fields)
                if let error = node["error"] { leaf(error, path: join(scope, "error"), text: nil, into: &fields) }
            } else {
                let hex = node["hex"] ?? .null
                fields.append(DiffField(path: scope, value: hex.jsonText, text: node["text"]?.nonNullText,
                                        raw: false, scope: scope, explainedBy: []))
                if let error = node["error"] { leaf(error, path: join(scope, "error"), text: nil, into: &fields) }
            }
            return
        }
        // {"code":..,"name":..}: one value with its meaning.
        if members.count == 2, members[0].0 == "code", members[1].0 == "name", members[0].1.isScalar {
            fields.append(DiffField(path: scope, value: members[0].1.jsonText, text: members[1].1.plainText,
                                    raw: false, scope: scope, explainedBy: []))
            return
        }
        for (key, value) in members {
            if !options.link && FlattenOptions.linkKeys.contains(key) { continue }
            if key.hasSuffix("_text"), members.contains(where: { $0.0 == key.dropLast(5) }) { continue }
            let path = join(scope, key)
            let text = members.first { $0.0 == key + "_text" }?.1.nonNullText
            switch value {
            case .object:
                object(value.members ?? [], scope: path, options: options, into: &fields)
            case .array(let items) where !items.allSatisfy(\.isScalar):
                array(items, scope: path, options: options, into: &fields)
            default:
                if let explainers = FlattenOptions.rawKeys[key] {
                    fields.append(DiffField(path: path, value: value.jsonText, text: text, raw: true,
                                            scope: scope, explainedBy: explainers))
                } else {
                    leaf(value, path: path, text: text, into: &fields)
                }
            }
        }
    }

    /// FeliCa service attribute (the code's low 6 bits, JIS X 6319-4 / FeliCa Card
    /// User's Manual): 0Ch-0Fh are cyclic services (with or without key, read/write
    /// or read-only), whose blocks hold a history, newest first.
    static func isCyclicService(_ code: String) -> Bool {
        guard let value = UInt16(code, radix: 16) else { return false }
        return (0x0C...0x0F).contains(value & 0x3F)
    }

    private static func leaf(_ value: JSONValue, path: String, text: String?, into fields: inout [DiffField]) {
        fields.append(DiffField(path: path, value: value.jsonText, text: text, raw: false, scope: path, explainedBy: []))
    }

    /// Elements are named by what they are where the record says it: TLV nodes by
    /// tag, FeliCa blocks by service:block, services and systems by code, others
    /// by index. A repeated name gets `#2`, `#3`...
    private static func array(_ items: [JSONValue], scope: String, options: FlattenOptions,
                              into fields: inout [DiffField]) {
        var seen: [String: Int] = [:]
        for (index, original) in items.enumerated() {
            var item = original
            var name = String(index)
            if let members = item.members {
                if isTLVNode(members), let tag = item["tag"]?.stringValue {
                    name = tag
                } else if let service = item["service"]?.stringValue, let block = item["block"] {
                    // A cyclic service's block 0 is its newest entry: a new entry moves
                    // every other one down a block. Its blocks are named by content, so
                    // two reads a day apart differ by the new entry (and the one that
                    // fell off the end), not by every block.
                    if isCyclicService(service), let hex = item["hex"]?.stringValue {
                        name = service + "@" + hex
                        // Its position is not its content: the block number moves.
                        item = .object((item.members ?? []).filter { $0.0 != "block" })
                    } else {
                        name = service + ":" + block.plainText
                    }
                } else if let code = item["code"]?.stringValue {
                    name = code
                }
            }
            let count = (seen[name] ?? 0) + 1
            seen[name] = count
            if count > 1 { name += "#\(count)" }
            let path = join(scope, name)
            switch item {
            case .object: object(item.members ?? [], scope: path, options: options, into: &fields)
            case .array(let inner): array(inner, scope: path, options: options, into: &fields)
            default: leaf(item, path: path, text: nil, into: &fields)
            }
        }
    }
}

package enum DiffKey {
    /// What an exchange is, independent of its content: the record type and
    /// - apdu: CLA (logical channel bits cleared), INS, P1/P2 (not for GENERATE AC,
    ///   INTERNAL AUTHENTICATE, PSO, whose P1/P2 are part of what is asked), the AID context;
    /// - felica: the command and its service codes (Polling: the system code);
    /// - ndef: the tag type.
    package static func key(of record: JSONValue) -> String {
        let type = record["type"]?.stringValue ?? "?"
        switch type {
        case "apdu":
            guard let ins = record["ins"]?.stringValue else { return "apdu:" }
            var key = "apdu:"
            if let cla = record["cla"]?.stringValue, let c = UInt8(cla, radix: 16) {
                let cleared = c < 0x40 ? c & 0xFC : (c < 0x80 ? c & 0xF0 : c)
                key += String(cleared, radix: 16)
            }
            key += "/" + ins
            if !["AE", "88", "2A"].contains(ins) {
                key += "/" + (record["p1"]?.stringValue ?? "") + (record["p2"]?.stringValue ?? "")
            }
            if let aid = record["aid"]?.stringValue { key += "/select:" + aid }
            if let aid = record["application"]?["aid"]?.stringValue { key += "@" + aid }
            return key
        case "felica":
            var key = "felica:" + (record["command"]?.stringValue ?? record["code"]?.plainText ?? "?")
            if let system = record["system_code"]?.stringValue { key += "/" + system }
            if case .array(let services)? = record["services"] {
                for s in services { key += "/" + (s["code"]?.stringValue ?? "?") }
            }
            return key
        case "ndef":
            return "ndef:" + (record["source"]?.stringValue ?? "?")
        case "activation":
            return "activation:" + (record["tech"]?.stringValue ?? "?")
        default:
            return type
        }
    }

    /// The first component of the exchange's change paths: `apdu[GET PROCESSING OPTIONS]`,
    /// `felica[read_without_encryption]`, `ndef[t2t]`.
    package static func label(of record: JSONValue) -> String {
        let type = record["type"]?.stringValue ?? "?"
        switch type {
        case "apdu": return "apdu[" + (record["name"]?.stringValue ?? "?") + "]"
        case "felica": return "felica[" + (record["command"]?.stringValue ?? "?") + "]"
        case "ndef": return "ndef[" + (record["source"]?.stringValue ?? "?") + "]"
        case "activation": return "activation[" + (record["tech"]?.stringValue ?? "?") + "]"
        default: return type
        }
    }

    /// One line saying what the exchange is (`GENERATE AC → 9000`).
    package static func summary(of record: JSONValue) -> String {
        let type = record["type"]?.stringValue ?? "?"
        switch type {
        case "apdu":
            var s = record["name"]?.stringValue ?? "APDU"
            if let aid = record["aid"]?.stringValue { s += " " + aid }
            if let rec = record["record"]?.stringValue { s += " " + rec }
            if let sw = record["sw"]?.stringValue {
                s += " → " + sw
            } else if let status = (record["mifare_plus"] ?? record["desfire"])?["status"]?.stringValue {
                // A native answer: its status is its first byte, there is no status word.
                s += " → status " + status
            } else {
                s += record["response"]?.stringValue == nil ? " → no answer" : " → answer without status word"
            }
            return s
        case "felica":
            var s = "FeliCa " + (record["command"]?.stringValue ?? "?")
            if case .array(let services)? = record["services"], !services.isEmpty {
                s += " " + services.compactMap { $0["code"]?.stringValue }.joined(separator: ",")
            }
            return s
        case "ndef":
            var s = "NDEF " + (record["source"]?.stringValue ?? "?")
            if case .array(let records)? = record["records"] {
                s += " \(records.count) record" + (records.count == 1 ? "" : "s")
                if let first = records.first, let uri = first["uri"]?.stringValue { s += " " + uri }
            }
            return s
        case "activation":
            var s = (record["tech"]?.stringValue ?? "?").uppercased() + " activation"
            if let uid = (record["uid"] ?? record["random_uid"] ?? record["pupi"])?.stringValue {
                s += record["pupi"] != nil ? " PUPI " + uid : (record["random_uid"] != nil ? " random UID " : " UID ") + uid
            }
            if let sak = record["sak"]?.stringValue { s += " SAK " + sak }
            if record["ats"] != nil { s += " ATS" }
            if record["attrib"] != nil { s += " ATTRIB" }
            return s
        default:
            return type
        }
    }

    package static func frames(of record: JSONValue) -> (Int, Int) {
        guard case .array(let items)? = record["frames"] else { return (0, 0) }
        let numbers = items.compactMap { v -> Int? in
            if case .number(let n) = v { return Int(n) }
            return nil
        }
        return (numbers.min() ?? 0, numbers.max() ?? 0)
    }
}

/// FNV-1a, 64 bits.
package struct FNV64 {
    package var value: UInt64 = 0xcbf29ce484222325
    package mutating func add(_ s: String) {
        for b in s.utf8 {
            value ^= UInt64(b)
            value = value &* 0x100000001b3
        }
        value ^= 0xFF
        value = value &* 0x100000001b3
    }
}
