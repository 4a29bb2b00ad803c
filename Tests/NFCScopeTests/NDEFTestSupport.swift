import Foundation
import Testing
@testable import NFCScope

/// One NDEF record laid out as NDEF 1.0 section 3.2 defines it: header (MB 80, ME 40,
/// CF 20, SR 10 when the payload is under 256 bytes, IL 08 when an id is given, TNF),
/// TYPE_LENGTH, PAYLOAD_LENGTH (1 or 4 bytes), ID_LENGTH, TYPE, ID, PAYLOAD.
func ndefRecord(mb: Bool = false, me: Bool = false, cf: Bool = false, tnf: UInt8, type: String = "",
                id: String? = nil, payload: [UInt8]) -> [UInt8] {
    let t = Array(type.utf8)
    var h: UInt8 = tnf
    if mb { h |= 0x80 }
    if me { h |= 0x40 }
    if cf { h |= 0x20 }
    let short = payload.count < 256
    if short { h |= 0x10 }
    if id != nil { h |= 0x08 }
    var out: [UInt8] = [h, UInt8(t.count)]
    if short {
        out.append(UInt8(payload.count))
    } else {
        let n = UInt32(payload.count)
        out += [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
    }
    if let id { out.append(UInt8(id.utf8.count)) }
    out += t
    if let id { out += Array(id.utf8) }
    out += payload
    return out
}

/// A JSON value parsed by hand, to check that no object has a key twice (which
/// JSONSerialization silently accepts).
func jsonDuplicateKeys(_ text: String) -> [String] {
    let s = Array(text.utf8)
    var i = 0
    var duplicates: [String] = []
    func skipSpace() { while i < s.count && (s[i] == 0x20 || s[i] == 0x0A || s[i] == 0x09 || s[i] == 0x0D) { i += 1 } }
    func string() -> String {
        var out: [UInt8] = []
        i += 1
        while i < s.count && s[i] != 0x22 {
            if s[i] == 0x5C { out.append(s[i]); i += 1 }
            if i < s.count { out.append(s[i]) }
            i += 1
        }
        i += 1
        return String(decoding: out, as: UTF8.self)
    }
    func value() {
        skipSpace()
        guard i < s.count else { return }
        switch s[i] {
        case 0x7B:
            i += 1
            var keys: Set<String> = []
            skipSpace()
            if i < s.count && s[i] == 0x7D { i += 1; return }
            while i < s.count {
                skipSpace()
                let k = string()
                if !keys.insert(k).inserted { duplicates.append(k) }
                skipSpace(); i += 1 // colon
                value()
                skipSpace()
                if i < s.count && s[i] == 0x2C { i += 1; continue }
                i += 1 // closing brace
                return
            }
        case 0x5B:
            i += 1
            skipSpace()
            if i < s.count && s[i] == 0x5D { i += 1; return }
            while i < s.count {
                value()
                skipSpace()
                if i < s.count && s[i] == 0x2C { i += 1; continue }
                i += 1
                return
            }
        case 0x22:
            _ = string()
        default:
            while i < s.count && !(s[i] == 0x2C || s[i] == 0x7D || s[i] == 0x5D) { i += 1 }
        }
    }
    value()
    return duplicates
}

/// The message as a JSON object (`{"type":"ndef"` + members + `}`), checked to be
/// valid JSON without duplicate keys; nil (and an issue) otherwise.
func ndefJSON(_ message: NDEFMessage, mask: Bool = false) -> (text: String, object: [String: Any])? {
    let out = OutputBuffer()
    out.ascii("{\"type\":\"ndef\"")
    NDEFRendering.writeJSONMembers(message, to: out, mask: mask)
    out.ascii("}")
    let text = out.string
    guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
        Issue.record("invalid JSON: \(text)")
        return nil
    }
    let duplicates = jsonDuplicateKeys(text)
    if !duplicates.isEmpty { Issue.record("duplicate keys \(duplicates) in \(text)") }
    return (text, object)
}

func ndefText(_ message: NDEFMessage, mask: Bool = false) -> String {
    let out = OutputBuffer()
    NDEFRendering.writeText(message, to: out, indent: 2, mask: mask)
    return out.string
}

/// Loads a Metrodroid card dump (Fixtures/ndef/metrodroid-NAME.json).
func metrodroidDump(_ name: String) -> [String: Any] {
    guard let data = FileManager.default.contents(atPath: fixturePath("ndef/metrodroid-\(name).json")),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        Issue.record("cannot read metrodroid-\(name).json")
        return [:]
    }
    return object
}

/// The blocks of FeliCa service 000B (NDEF, 11 decimal) in the dump's only system, by block number.
func metrodroidNDEFBlocks(_ dump: [String: Any]) -> [[UInt8]] {
    guard let felica = dump["felica"] as? [String: Any], let systems = felica["systems"] as? [String: Any],
          let system = systems.values.first as? [String: Any], let services = system["services"] as? [String: Any],
          let service = services["11"] as? [String: Any], let blocks = service["blocksMap"] as? [String: Any] else { return [] }
    return blocks.compactMap { k, v -> (Int, [UInt8])? in
        guard let n = Int(k), n < 0x80, let b = v as? [String: Any], let hex = b["data"] as? String else { return nil }
        return (n, bytes(hex))
    }.sorted { $0.0 < $1.0 }.map(\.1)
}
