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
        var walk = FlattenWalk(options: options, sink: DiffFieldList())
        walk.record(record)
        return walk.sink.fields
    }

    /// The hash of a record's leaves (each path, then its value, as `FNV64.add` takes
    /// them): what `flatten` gives, hashed without making its Strings.
    package static func hash(_ record: JSONValue, options: FlattenOptions) -> UInt64 {
        var walk = FlattenWalk(options: options, sink: DiffFieldHash())
        walk.record(record)
        return walk.sink.hash.value
    }

    /// FeliCa service attribute (the code's low 6 bits, JIS X 6319-4 / FeliCa Card
    /// User's Manual): 0Ch-0Fh are cyclic services (with or without key, read/write
    /// or read-only), whose blocks hold a history, newest first.
    static func isCyclicService(_ code: String) -> Bool {
        guard let value = UInt16(code, radix: 16) else { return false }
        return (0x0C...0x0F).contains(value & 0x3F)
    }

    /// `FlattenOptions.linkKeys.contains(key)`: a String equal to one of those ASCII
    /// keys has its bytes, so only a key of one of their lengths is compared.
    static func isLinkKey(_ key: String) -> Bool {
        switch key.utf8.count {
        case 1: return key == "n"
        case 3: return key == "wtx" || key == "crc"
        case 4: return key == "time"
        case 6: return key == "frames"
        case 14: return key == "frames_omitted"
        case 15: return key == "retransmissions"
        default: return false
        }
    }

    /// `FlattenOptions.rawKeys[key]`, compared by length first as `isLinkKey`.
    static func explainers(_ key: String) -> [String]? {
        switch key.utf8.count {
        case 2: return key == "lc" ? commandExplainers : nil
        case 3: return key == "hex" ? fieldsExplainers : nil
        case 4: return key == "data" ? commandExplainers : nil
        case 7: return key == "payload" ? anyExplainers : nil
        case 8: return key == "response" ? tlvExplainers : nil
        case 14: return key == "payload_length" ? anyExplainers : nil
        default: return nil
        }
    }

    private static let commandExplainers = FlattenOptions.rawKeys["data"] ?? []
    private static let fieldsExplainers = FlattenOptions.rawKeys["hex"] ?? []
    private static let anyExplainers = FlattenOptions.rawKeys["payload"] ?? []
    private static let tlvExplainers = FlattenOptions.rawKeys["response"] ?? []

    /// Whether the key's bytes end with `_text` (a String with `hasSuffix("_text")`,
    /// or equal to some key + `_text`, does).
    static func endsWithText(_ key: String) -> Bool {
        let u = key.utf8
        guard u.count >= 5 else { return false }
        // From the last byte back: most keys differ there already.
        var i = u.index(before: u.endIndex)
        guard u[i] == 0x74 else { return false }
        i = u.index(before: i)
        guard u[i] == 0x78 else { return false }
        i = u.index(before: i)
        guard u[i] == 0x65 else { return false }
        i = u.index(before: i)
        guard u[i] == 0x74 else { return false }
        i = u.index(before: i)
        return u[i] == 0x5F
    }

    /// The first of `keys` equal to `name`, a key of lowercase ASCII letters and `_`: no
    /// other String is equal to it (no character's canonical decomposition is one of
    /// those), so only keys of its length are compared.
    static func index(of name: String, in keys: ArraySlice<String>) -> Int? {
        let n = name.utf8.count
        return keys.firstIndex { $0.utf8.count == n && $0 == name }
    }
}

/// Where the flattener's leaves go: a field list (`diff`'s comparison of a pair) or a
/// hash of their paths and values (the first pass, per exchange).
protocol DiffFieldSink {
    /// Whether leaves' texts are looked at (the hash does not).
    var wantsText: Bool { get }
    /// A leaf at `path` (its object's path is its first `scopeCount` bytes).
    mutating func add(path: [UInt8], scopeCount: Int, value: JSONValue, text: String?, raw: Bool,
                      explainedBy: [String], scratch: OutputBuffer)
}

struct DiffFieldList: DiffFieldSink {
    var fields: [DiffField] = []
    var wantsText: Bool { true }

    mutating func add(path: [UInt8], scopeCount: Int, value: JSONValue, text: String?, raw: Bool,
                      explainedBy: [String], scratch: OutputBuffer) {
        let p = String(decoding: path, as: UTF8.self)
        let v: String
        switch value {
        case .number(let n): v = n
        case .null: v = "null"
        case .bool(let b): v = b ? "true" : "false"
        default:
            scratch.removeAll()
            value.write(to: scratch)
            v = scratch.withContents { $0.decodedUTF8 }
        }
        let scope = raw ? String(decoding: path[..<scopeCount], as: UTF8.self) : p
        fields.append(DiffField(path: p, value: v, text: text, raw: raw, scope: scope, explainedBy: explainedBy))
    }
}

struct DiffFieldHash: DiffFieldSink {
    var hash = FNV64()
    var wantsText: Bool { false }

    mutating func add(path: [UInt8], scopeCount: Int, value: JSONValue, text: String?, raw: Bool,
                      explainedBy: [String], scratch: OutputBuffer) {
        hash.add(path)
        switch value {
        case .number(let n): hash.add(n)
        case .null: hash.add("null")
        case .bool(let b): hash.add(b ? "true" : "false")
        default:
            scratch.removeAll()
            value.write(to: scratch)
            scratch.withContents { hash.add($0) }
        }
    }
}

/// One flattening: the path of the value being walked, kept as bytes (a member's key
/// appended on the way in, cut off on the way out), and a scratch buffer for the
/// leaves' JSON.
struct FlattenWalk<Sink: DiffFieldSink> {
    let options: FlattenOptions
    var sink: Sink
    private var path: [UInt8] = []
    private let scratch = OutputBuffer(initialCapacity: 256)

    init(options: FlattenOptions, sink: Sink) {
        self.options = options
        self.sink = sink
        path.reserveCapacity(128)
    }

    /// Leaves of a record's members (its `type` left out).
    mutating func record(_ record: JSONValue) {
        guard case .object(let keys, let values) = record else { return }
        // Records begin with their type: then its members are the rest.
        var typeCount = 0
        for k in keys where k.utf8.count == 4 && k == "type" { typeCount += 1 }
        if typeCount == 0 {
            object(keys[...], values[...])
        } else if typeCount == 1, keys.first == "type" {
            object(keys[1...], values[1...])
        } else {
            var ks: [String] = []
            var vs: [JSONValue] = []
            for (k, v) in zip(keys, values) where k != "type" {
                ks.append(k)
                vs.append(v)
            }
            object(ks[...], vs[...])
        }
    }

    /// Appends `/key` (`key` at the top) to the path; returns the length to cut back to.
    private mutating func push(_ key: String) -> Int {
        let mark = path.count
        if mark > 0 { path.append(0x2F) }
        path.append(contentsOf: key.utf8)
        return mark
    }

    private mutating func pop(_ mark: Int) {
        path.removeSubrange(mark...)
    }

    private func isTLVNode(_ keys: ArraySlice<String>) -> Bool {
        guard let first = keys.first, first.utf8.count == 3, first == "tag" else { return false }
        return DiffFlattener.index(of: "hex", in: keys) != nil
    }

    /// The value of the member `name` (lowercase letters and `_`: `DiffFlattener.index`).
    private func member(_ name: String, _ keys: ArraySlice<String>, _ values: ArraySlice<JSONValue>) -> JSONValue? {
        guard let i = DiffFlattener.index(of: name, in: keys) else { return nil }
        return values[i - keys.startIndex + values.startIndex]
    }

    private mutating func leaf(_ value: JSONValue, text: String?) {
        sink.add(path: path, scopeCount: path.count, value: value, text: text, raw: false, explainedBy: [],
                 scratch: scratch)
    }

    /// `error` under the current path.
    private mutating func errorLeaf(_ error: JSONValue) {
        let mark = push("error")
        leaf(error, text: nil)
        pop(mark)
    }

    private mutating func object(_ keys: ArraySlice<String>, _ values: ArraySlice<JSONValue>) {
        if isTLVNode(keys) {
            if case .array(let children)? = member("children", keys, values) {
                array(children)
                if let error = member("error", keys, values) { errorLeaf(error) }
            } else {
                let hex = member("hex", keys, values) ?? .null
                let text = sink.wantsText ? member("text", keys, values)?.nonNullText : nil
                leaf(hex, text: text)
                if let error = member("error", keys, values) { errorLeaf(error) }
            }
            return
        }
        let v0 = values.startIndex
        // {"code":..,"name":..}: one value with its meaning.
        if keys.count == 2, DiffFlattener.index(of: "code", in: keys) == keys.startIndex,
           keys[keys.startIndex + 1] == "name", values[v0].isScalar {
            leaf(values[v0], text: sink.wantsText ? values[v0 + 1].plainText : nil)
            return
        }
        // Keys ending with `_text` are the rendered meanings of their siblings.
        var texts = false
        for k in keys where DiffFlattener.endsWithText(k) {
            texts = true
            break
        }
        let link = options.link
        for (offset, key) in keys.enumerated() {
            let value = values[v0 + offset]
            if !link && DiffFlattener.isLinkKey(key) { continue }
            var text: String?
            if texts {
                if DiffFlattener.endsWithText(key), key.hasSuffix("_text"),
                   keys.contains(where: { $0 == key.dropLast(5) }) { continue }
                if sink.wantsText {
                    let textKey = key + "_text"
                    if let i = keys.firstIndex(of: textKey) { text = values[i - keys.startIndex + v0].nonNullText }
                }
            }
            let mark = push(key)
            switch value {
            case .object(let k, let v):
                object(k[...], v[...])
            case .array(let items) where !items.allSatisfy(\.isScalar):
                array(items)
            default:
                if let explainers = DiffFlattener.explainers(key) {
                    sink.add(path: path, scopeCount: mark, value: value, text: text, raw: true,
                             explainedBy: explainers, scratch: scratch)
                } else {
                    leaf(value, text: text)
                }
            }
            pop(mark)
        }
    }

    /// Elements are named by what they are where the record says it: TLV nodes by
    /// tag, FeliCa blocks by service:block, services and systems by code, others
    /// by index. A repeated name gets `#2`, `#3`...
    private mutating func array(_ items: [JSONValue]) {
        var seen: [String: Int] = [:]
        for (index, original) in items.enumerated() {
            var item = original
            var name = String(index)
            if case .object(let keys, let values) = item {
                if isTLVNode(keys[...]), let tag = item["tag"]?.stringValue {
                    name = tag
                } else if let service = member("service", keys[...], values[...])?.stringValue,
                          let block = member("block", keys[...], values[...]) {
                    // A cyclic service's block 0 is its newest entry: a new entry moves
                    // every other one down a block. Its blocks are named by content, so
                    // two reads a day apart differ by the new entry (and the one that
                    // fell off the end), not by every block.
                    if DiffFlattener.isCyclicService(service), let hex = member("hex", keys[...], values[...])?.stringValue {
                        name = service + "@" + hex
                        // Its position is not its content: the block number moves.
                        var ks: [String] = []
                        var vs: [JSONValue] = []
                        for (k, v) in zip(keys, values) where k != "block" {
                            ks.append(k)
                            vs.append(v)
                        }
                        item = .object(keys: ks, values: vs)
                    } else {
                        name = service + ":" + block.plainText
                    }
                } else if let code = member("code", keys[...], values[...])?.stringValue {
                    name = code
                }
            }
            let count = (seen[name] ?? 0) + 1
            seen[name] = count
            let mark = push(name)
            if count > 1 {
                path.append(0x23)
                path.append(contentsOf: String(count).utf8)
            }
            switch item {
            case .object(let k, let v): object(k[...], v[...])
            case .array(let inner): array(inner)
            default: leaf(item, text: nil)
            }
            pop(mark)
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

    /// `add` of the String these bytes are.
    mutating func add(_ bytes: [UInt8]) {
        for b in bytes {
            value ^= UInt64(b)
            value = value &* 0x100000001b3
        }
        value ^= 0xFF
        value = value &* 0x100000001b3
    }

    /// `add` of the String these bytes are.
    mutating func add(_ bytes: ByteView) {
        for i in 0..<bytes.count {
            value ^= UInt64(bytes[i])
            value = value &* 0x100000001b3
        }
        value ^= 0xFF
        value = value &* 0x100000001b3
    }
}
