import Foundation
import Testing
@testable import NFCScope

// All 203 literal test vectors of nfcpy/ndeflib (Fixtures/ndef/ndeflib_test_vectors.json,
// see Fixtures/README.md). Each table pairs encoded octets (a whole message for the
// test_message/test_record tables, a record payload for the record-type tables) with
// the decoded values ndeflib expects or the error it raises. Valid vectors must decode
// to those values; error vectors must report the error (matched by its text; ndeflib's
// wording was followed where the meaning is the same). "relax" vectors are invalid
// data ndeflib decodes leniently: the strict error must be reported and the fields
// that do not depend on ndeflib's substitutions must match.

/// The vector tables: file -> table -> [(input, expected)].
nonisolated(unsafe) private let vectorTables: [String: [String: [[Any]]]] = {
    guard let data = FileManager.default.contents(atPath: fixturePath("ndef/ndeflib_test_vectors.json")),
          let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
          let tables = root["tables"] as? [String: [String: [[Any]]]] else { return [:] }
    return tables
}()

private func table(_ file: String, _ name: String) -> [[Any]] {
    vectorTables[file]?[name] ?? []
}

/// Parses `hex` as a message.
private func parseMessage(_ hex: String, _ body: (NDEFMessage) -> Void) {
    ByteView.with(bytes(hex)) { body(NDEFMessage(parsing: $0)) }
}

/// Wraps a payload into one record of `tnf`/`type` (MB ME, short or long form), parses
/// it in `context` and hands over the record and the errors.
private func decodePayload(_ hex: String, type: String, tnf: UInt8 = 1, context: NDEFContext = .top,
                           _ body: (NDEFRecord, [NDEFError]) -> Void) {
    let payload = bytes(hex)
    var record: [UInt8] = []
    let t = Array(type.utf8)
    if payload.count < 256 {
        record = [0xD0 | tnf, UInt8(t.count), UInt8(payload.count)]
    } else {
        let n = UInt32(payload.count)
        record = [0xC0 | tnf, UInt8(t.count), UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
    }
    record += t + payload
    ByteView.with(record) { v in
        let m = NDEFMessage(parsing: v, baseOffset: 0, depth: 0, context: context)
        if let r = m.records.first { body(r, m.errors) } else { Issue.record("no record for \(hex)") }
    }
}

/// Whether `errors` holds `expected`, case-insensitively; ndeflib messages that are
/// Python internals (struct.unpack_from) are mapped to what they mean here.
private func reports(_ errors: [NDEFError], _ expected: String) -> Bool {
    let wanted = expected.hasPrefix("unpack_from requires a buffer") ? "exceeds the payload" : expected
    return errors.contains { $0.message.lowercased().contains(wanted.lowercased()) }
}

private func hexOf(_ any: Any?) -> [UInt8]? {
    guard let d = any as? [String: Any], let h = d["bytes_hex"] as? String else { return nil }
    return bytes(h)
}

private func utf8(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }

/// ndeflib writes versions as 16 (0x10) or "1.1".
private func versionByte(_ any: Any) -> UInt8? {
    if let n = any as? Int { return UInt8(n) }
    if let s = any as? String {
        let p = s.split(separator: ".").compactMap { UInt8($0) }
        if p.count == 2 { return p[0] << 4 | p[1] }
    }
    return nil
}

/// An expected alternative carrier: [cps (name or number), cdr, aux...].
private func checkCarrier(_ ac: NDEFAlternativeCarrier?, _ expected: [Any], _ label: String) {
    guard let ac else { Issue.record("\(label): no alternative carrier"); return }
    if let name = expected[0] as? String { #expect(ac.powerStateName == name, "\(label)") }
    if let code = expected[0] as? Int { #expect(Int(ac.powerState) == code, "\(label)") }
    #expect(utf8(ac.dataReference) == expected[1] as? String, "\(label)")
    #expect(ac.auxiliaryReferences.map(utf8) == expected.dropFirst(2).compactMap { $0 as? String }, "\(label)")
}

@Suite struct NDEFVectorTests {
    @Test func allVectorsPresent() {
        let count = vectorTables.values.flatMap(\.values).reduce(0) { $0 + $1.count }
        #expect(count == 203)
    }

    // MARK: test_message.py

    @Test func messagesValid() {
        let vectors = table("tests/test_message.py (hand-copied, uses Record() objects)", "test_message_set_1")
        #expect(vectors.count == 5)
        for v in vectors {
            let hex = v[0] as! String, expected = v[1] as! String
            // "[Record(), Record('unknown')]" or "3x Record()": the physical records, in order.
            var tnfs: [String] = []
            if let n = Int(expected.prefix { $0.isNumber }), expected.contains("x Record()") {
                tnfs = Array(repeating: "empty", count: n)
            } else {
                var rest = Substring(expected)
                while let r = rest.range(of: "Record(") {
                    rest = rest[r.upperBound...]
                    if rest.hasPrefix(")") { tnfs.append("empty") } else {
                        tnfs.append(String(rest.dropFirst().prefix { $0 != "'" }))
                    }
                }
            }
            parseMessage(hex) { m in
                #expect(m.errors.isEmpty, "\(hex): \(m.errors)")
                let chunks = m.records.flatMap(\.chunks).map { "\($0.header.tnf.jsonName)" }
                #expect(chunks == tnfs, "\(hex)")
            }
        }
        // The chunked pair is one logical record of TNF unknown (NDEF 1.0 section 3.3.3).
        parseMessage("B50000 560000") { m in
            #expect(m.records.count == 1)
            #expect(m.records.first?.tnf == .unknown)
            #expect(m.records.first?.chunks.count == 2)
        }
    }

    @Test func messageFlagErrors() {
        let vectors = table("tests/test_message.py", "test_message_set_2")
        #expect(vectors.count == 4)
        for v in vectors {
            let hex = v[0] as! String, expected = v[1] as! String
            parseMessage(hex) { m in
                #expect(reports(m.errors, expected), "\(hex): \(m.errors)")
                // ndeflib's relaxed decode keeps all three records: so do we.
                #expect(m.records.flatMap(\.chunks).count == 3, "\(hex)")
            }
        }
    }

    @Test func messageLengthErrors() {
        let vectors = table("tests/test_message.py", "test_message_set_3")
        #expect(vectors.count == 10)
        for v in vectors {
            let hex = v[0] as! String, expected = v[1] as! String
            parseMessage(hex) { m in
                #expect(reports(m.errors, expected), "\(hex): \(m.errors)")
            }
            // After a good first record, the good record is kept and the error reported.
            parseMessage("900000" + hex) { m in
                #expect(reports(m.errors, expected), "900000\(hex): \(m.errors)")
                #expect(m.records.first?.tnf == .empty, "900000\(hex)")
            }
        }
    }

    /// test_message_set_4 and _5 check Python argument types (an int or float passed
    /// where bytes or Record objects belong). Swift's types rule those calls out at
    /// compile time; the vectors are counted here so that none goes unnoticed.
    @Test func pythonTypeVectors() {
        let four = table("tests/test_message.py", "test_message_set_4")
        let five = table("tests/test_message.py", "test_message_set_5")
        #expect(four.count == 2 && five.count == 2)
        for v in four + five {
            #expect(!(v[0] is String), "a byte-string vector would have to be decoded")
            #expect((v[1] as? String)?.contains("required") == true)
        }
    }

    // MARK: test_record.py

    @Test func recordHeaderErrors() {
        let vectors = table("tests/test_record.py", "TestDecode.wrong_decode_data")
        #expect(vectors.count == 19)
        for v in vectors {
            let hex = v[0] as! String, expected = v[1] as! String
            parseMessage(hex) { m in #expect(reports(m.errors, expected), "\(hex): \(m.errors)") }
        }
    }

    // MARK: Text, URI

    @Test func textRecords() {
        let valid = table("tests/test_text.py", "TestTextRecord.test_decode_valid_data")
        #expect(valid.count == 6)
        for v in valid {
            let hex = v[0] as! String, e = v[1] as! [String]
            decodePayload(hex, type: "T") { r, errors in
                #expect(errors.isEmpty, "\(hex): \(errors)")
                guard case .text(let t) = r.decoded else { Issue.record("\(hex): not text"); return }
                #expect(t.text == e[0] && t.language == e[1] && t.encoding.rawValue == e[2], "\(hex)")
            }
        }
        let invalid = table("tests/test_text.py", "TestTextRecord.test_decode_error_data")
        #expect(invalid.count == 4)
        for v in invalid {
            let hex = v[0] as! String, expected = v[1] as! String
            decodePayload(hex, type: "T") { _, errors in #expect(reports(errors, expected), "\(hex): \(errors)") }
        }
    }

    @Test func uri() {
        let valid = table("tests/test_uri.py", "TestUriRecord.test_decode_valid_data")
        #expect(valid.count == 36)
        for v in valid {
            let hex = v[0] as! String, e = v[1] as! [String]
            decodePayload(hex, type: "U") { r, errors in
                #expect(errors.isEmpty, "\(hex): \(errors)")
                guard case .uri(let u) = r.decoded else { Issue.record("\(hex): not a URI"); return }
                #expect(u.uri == e[0], "\(hex)")
            }
        }
        // Every identifier code 0x00-0x23 is covered by the valid vectors.
        #expect(Set(valid.map { bytes($0[0] as! String)[0] }) == Set(0...0x23))
        let invalid = table("tests/test_uri.py", "TestUriRecord.test_decode_error_data")
        #expect(invalid.count == 4)
        for v in invalid {
            let hex = v[0] as! String, expected = v[1] as! String
            decodePayload(hex, type: "U") { _, errors in #expect(reports(errors, expected), "\(hex): \(errors)") }
        }
        // Relaxed: an RFU code; ndeflib drops it. We report it and keep the rest, no URI.
        let relax = table("tests/test_uri.py", "TestUriRecord.test_decode_relax_data")
        #expect(relax.count == 2)
        for v in relax {
            let hex = v[0] as! String, e = v[1] as! [String]
            decodePayload(hex, type: "U") { r, errors in
                #expect(reports(errors, "is not defined"), "\(hex)")
                guard case .uri(let u) = r.decoded else { Issue.record("\(hex): not a URI"); return }
                #expect(u.rest == e[0] && u.uri == nil, "\(hex)")
            }
        }
    }

    // MARK: Smart Poster

    @Test func smartPosterLocalRecords() {
        let file = "tests/test_smartposter.py"
        for v in table(file, "TestActionRecord.test_decode_valid_data") {
            decodePayload(v[0] as! String, type: "act", context: .smartPoster) { r, errors in
                #expect(errors.isEmpty)
                guard case .action(let a) = r.decoded else { Issue.record("not an action"); return }
                #expect(a.name == (v[1] as! [String])[0])
            }
        }
        let actionErrors = table(file, "TestActionRecord.test_decode_error_data")
        let actionRelax = table(file, "TestActionRecord.test_decode_relax_data")
        #expect(actionErrors.count == 2 && actionRelax.count == 2)
        for (v, relaxed) in zip(actionErrors, actionRelax) {
            let hex = v[0] as! String
            #expect(relaxed[0] as? String == hex)
            decodePayload(hex, type: "act", context: .smartPoster) { r, errors in
                #expect(reports(errors, v[1] as! String), "\(hex): \(errors)")
                // ndeflib substitutes "exec"; we keep the RFU code and give it no name.
                guard case .action(let a) = r.decoded else { Issue.record("not an action"); return }
                #expect(a.code == bytes(hex)[0] && a.name == nil)
            }
        }
        let sizes = table(file, "TestSizeRecord.test_decode_valid_data")
        #expect(sizes.count == 3)
        for v in sizes {
            decodePayload(v[0] as! String, type: "s", context: .smartPoster) { r, errors in
                #expect(errors.isEmpty)
                guard case .size(let s) = r.decoded else { Issue.record("not a size"); return }
                #expect(Int(s) == (v[1] as! [Int])[0])
            }
        }
        let types = table(file, "TestTypeRecord.test_decode_valid_data")
        #expect(types.count == 2)
        for v in types {
            decodePayload(v[0] as! String, type: "t", context: .smartPoster) { r, errors in
                #expect(errors.isEmpty)
                guard case .targetType(let t) = r.decoded else { Issue.record("not a type"); return }
                #expect(t == (v[1] as! [String])[0])
            }
        }
        let typeErrors = table(file, "TestTypeRecord.test_decode_error_data")
        #expect(typeErrors.count == 1)
        for v in typeErrors {
            decodePayload(v[0] as! String, type: "t", context: .smartPoster) { _, errors in
                #expect(reports(errors, v[1] as! String), "\(errors)")
            }
        }
    }

    @Test func smartPoster() {
        let file = "tests/test_smartposter.py"
        let valid = table(file, "TestSmartposterRecord.test_decode_valid_data")
        #expect(valid.count == 11)
        for v in valid {
            let hex = v[0] as! String, e = v[1] as! [Any]
            decodePayload(hex, type: "Sp") { r, errors in
                #expect(errors.isEmpty, "\(hex): \(errors)")
                guard case .smartPoster(let sp) = r.decoded else { Issue.record("\(hex): not a Smart Poster"); return }
                // SmartposterRecord(resource, title, action, icon, resource_size, resource_type)
                #expect(sp.uri == e[0] as? String, "\(hex)")
                if e.count > 1 {
                    if let title = e[1] as? String {
                        #expect(sp.titles.count == 1 && sp.titles.first?.text == title && sp.titles.first?.language == "en", "\(hex)")
                    } else if let titles = e[1] as? [String: String] {
                        #expect(sp.titles.map { "\($0.language ?? "")=\($0.text ?? "")" } == titles.map { "\($0.key)=\($0.value)" }, "\(hex)")
                    } else {
                        #expect(sp.titles.isEmpty, "\(hex)")
                    }
                }
                if e.count > 2 { #expect(sp.action?.name == e[2] as? String, "\(hex)") }
                if e.count > 3 {
                    if let png = hexOf(e[3]) {
                        #expect(sp.icons.count == 1 && sp.icons.first?.mime == "image/png" && sp.icons.first?.data.array == png, "\(hex)")
                    } else if let icon = e[3] as? [String: Any], let (mime, data) = icon.first.map({ ($0.key, hexOf($0.value)) }) {
                        #expect(sp.icons.count == 1 && sp.icons.first?.mime == mime && sp.icons.first?.data.array == data, "\(hex)")
                    } else {
                        #expect(sp.icons.isEmpty, "\(hex)")
                    }
                }
                if e.count > 4 { #expect(sp.size.map(Int.init) == e[4] as? Int, "\(hex)") }
                if e.count > 5 { #expect(sp.targetType == e[5] as? String, "\(hex)") }
            }
        }
        let invalid = table(file, "TestSmartposterRecord.test_decode_error_data")
        #expect(invalid.count == 2)
        for v in invalid {
            decodePayload(v[0] as! String, type: "Sp") { _, errors in #expect(reports(errors, v[1] as! String), "\(errors)") }
        }
        let relax = table(file, "TestSmartposterRecord.test_decode_relax_data")
        #expect(relax.count == 1)
        for v in relax {
            let hex = v[0] as! String, e = v[1] as! [Any]
            decodePayload(hex, type: "Sp") { r, errors in
                #expect(reports(errors, "decoding of ACTION value 255 is not defined"), "\(errors)")
                guard case .smartPoster(let sp) = r.decoded else { Issue.record("not a Smart Poster"); return }
                #expect(sp.uri == e[0] as? String)
                #expect(sp.action?.code == 0xFF)
            }
        }
    }

    // MARK: Handover

    @Test func alternativeCarrier() {
        let file = "tests/test_handover.py"
        let valid = table(file, "TestAlternativeCarrierRecord.test_decode_valid_data")
        #expect(valid.count == 8)
        for v in valid {
            let hex = v[0] as! String
            decodePayload(hex, type: "ac", context: .handover) { r, errors in
                #expect(errors.isEmpty, "\(hex): \(errors)")
                guard case .alternativeCarrier(let ac) = r.decoded else { Issue.record("\(hex): not ac"); return }
                checkCarrier(ac, v[1] as! [Any], hex)
            }
        }
        let invalid = table(file, "TestAlternativeCarrierRecord.test_decode_error_data")
        #expect(invalid.count == 7)
        for v in invalid {
            let hex = v[0] as! String
            decodePayload(hex, type: "ac", context: .handover) { _, errors in
                #expect(reports(errors, v[1] as! String), "\(hex): \(errors)")
            }
        }
        let relax = table(file, "TestAlternativeCarrierRecord.test_decode_relax_data")
        #expect(relax.count == 1)
        for v in relax {
            let hex = v[0] as! String
            decodePayload(hex, type: "ac", context: .handover) { r, errors in
                #expect(reports(errors, "missing auxiliary data reference count"), "\(hex)")
                guard case .alternativeCarrier(let ac) = r.decoded else { Issue.record("\(hex): not ac"); return }
                checkCarrier(ac, v[1] as! [Any], hex)
            }
        }
    }

    @Test func collisionResolutionAndError() {
        let file = "tests/test_handover.py"
        let cr = table(file, "TestCollisionResolutionRecord.test_decode_valid_data")
        #expect(cr.count == 4)
        for v in cr {
            decodePayload(v[0] as! String, type: "cr", context: .handover) { r, errors in
                #expect(errors.isEmpty)
                guard case .collisionResolution(let n) = r.decoded else { Issue.record("not cr"); return }
                #expect(Int(n) == (v[1] as! [Int])[0])
            }
        }
        for v in table(file, "TestCollisionResolutionRecord.test_decode_relax_data") {
            decodePayload(v[0] as! String, type: "cr", context: .handover) { r, errors in
                #expect(reports(errors, "1 octet left after decode"))
                guard case .collisionResolution(let n) = r.decoded else { Issue.record("not cr"); return }
                #expect(Int(n) == (v[1] as! [Int])[0])
            }
        }
        let valid = table(file, "TestErrorRecord.test_decode_valid_data")
        #expect(valid.count == 4)
        for v in valid {
            let hex = v[0] as! String, e = v[1] as! [Any]
            decodePayload(hex, type: "err", context: .handover) { r, errors in
                #expect(errors.isEmpty, "\(hex): \(errors)")
                guard case .handoverError(let err) = r.decoded else { Issue.record("not err"); return }
                #expect(Int(err.reason) == e[0] as? Int)
                if let n = e[1] as? Int { #expect(err.value.map(Int.init) == n, "\(hex)") }
                if let b = hexOf(e[1]) { #expect(err.value == nil && err.data == b, "\(hex)") }
            }
        }
        let invalid = table(file, "TestErrorRecord.test_decode_error_data")
        #expect(invalid.count == 7)
        for v in invalid {
            let hex = v[0] as! String
            decodePayload(hex, type: "err", context: .handover) { _, errors in
                #expect(reports(errors, v[1] as! String), "\(hex): \(errors)")
            }
        }
        let relax = table(file, "TestErrorRecord.test_decode_relax_data")
        #expect(relax.count == 3)
        for v in relax {
            let hex = v[0] as! String, e = v[1] as! [Int]
            decodePayload(hex, type: "err", context: .handover) { r, errors in
                #expect(reports(errors, "left after decode"), "\(hex)")
                guard case .handoverError(let err) = r.decoded else { Issue.record("not err"); return }
                #expect(Int(err.reason) == e[0] && err.value.map(Int.init) == e[1], "\(hex)")
            }
        }
    }

    /// Hr/Hs/Hm/Hi: [version, (cr for Hr | err for Hs), alternative carriers...].
    private func checkHandover(_ hex: String, type: String, _ e: [Any], strict: Bool) {
        decodePayload(hex, type: type) { r, errors in
            if strict { #expect(errors.isEmpty, "\(type) \(hex): \(errors)") } else { #expect(!errors.isEmpty, "\(type) \(hex)") }
            guard case .handover(let h) = r.decoded else { Issue.record("\(hex): not a handover record"); return }
            #expect(h.major << 4 | h.minor == versionByte(e[0]), "\(hex)")
            var rest = e.dropFirst()
            if type == "Hr", let cr = rest.first {
                #expect(h.collisionResolution.map(Int.init) == cr as? Int, "\(hex)")
                rest = rest.dropFirst()
            }
            if type == "Hs", let err = rest.first {
                if let pair = err as? [Int] {
                    #expect(h.error.map { [Int($0.reason), Int($0.value ?? 0)] } == pair, "\(hex)")
                } else {
                    #expect(h.error == nil, "\(hex)")
                }
                rest = rest.dropFirst()
            }
            let carriers = h.alternativeCarriers
            #expect(carriers.count == rest.count, "\(hex)")
            for (ac, expected) in zip(carriers, rest) { checkCarrier(ac, expected as! [Any], hex) }
        }
    }

    @Test func handoverRecords() {
        let file = "tests/test_handover.py"
        for (type, name) in [("Hr", "HandoverRequest"), ("Hs", "HandoverSelect"), ("Hm", "HandoverMediation"), ("Hi", "HandoverInitiate")] {
            let valid = table(file, "Test\(name)Record.test_decode_valid_data")
            #expect(valid.count == [6, 7, 4, 4][["Hr", "Hs", "Hm", "Hi"].firstIndex(of: type)!])
            for v in valid { checkHandover(v[0] as! String, type: type, v[1] as! [Any], strict: true) }
            for v in table(file, "Test\(name)Record.test_decode_relax_data") {
                checkHandover(v[0] as! String, type: type, v[1] as! [Any], strict: false)
            }
            for v in table(file, "Test\(name)Record.test_decode_error_data") {
                decodePayload(v[0] as! String, type: type) { _, errors in #expect(reports(errors, v[1] as! String), "\(errors)") }
            }
        }
        #expect(table(file, "TestHandoverRequestRecord.test_decode_relax_data").count == 4)
        #expect(table(file, "TestHandoverSelectRecord.test_decode_relax_data").count == 1)
        #expect(table(file, "TestHandoverRequestRecord.test_decode_error_data").count == 1)
    }

    @Test func handoverCarrier() {
        let file = "tests/test_handover.py"
        let valid = table(file, "TestHandoverCarrierRecord.test_decode_valid_data")
        #expect(valid.count == 3)
        for v in valid {
            let hex = v[0] as! String, e = v[1] as! [Any]
            decodePayload(hex, type: "Hc") { r, errors in
                #expect(errors.isEmpty, "\(hex): \(errors)")
                guard case .handoverCarrier(let c) = r.decoded else { Issue.record("not Hc"); return }
                #expect(utf8(c.carrierType) == (e.first as? String ?? ""), "\(hex)")
                #expect(c.carrierData == (e.count > 1 ? hexOf(e[1]) ?? [] : []), "\(hex)")
                if !e.isEmpty { #expect(c.typeFormat == 2, "\(hex): media type carrier") }
            }
        }
        for v in table(file, "TestHandoverCarrierRecord.test_decode_error_data") {
            decodePayload(v[0] as! String, type: "Hc") { _, errors in #expect(reports(errors, v[1] as! String), "\(errors)") }
        }
    }

    // MARK: Device Information, Signature

    @Test func deviceInformation() {
        let file = "tests/test_deviceinfo.py"
        let valid = table(file, "TestDeviceInformationRecord.test_decode_valid_data")
        #expect(valid.count == 5)
        for v in valid {
            let hex = v[0] as! String, e = v[1] as! [Any]
            decodePayload(hex, type: "Di") { r, errors in
                #expect(errors.isEmpty, "\(hex): \(errors)")
                guard case .deviceInformation(let di) = r.decoded else { Issue.record("not Di"); return }
                // DeviceInformationRecord(vendor, model, unique_name, uuid, version, *undefined)
                #expect(di.manufacturer == e[0] as? String && di.model == e[1] as? String, "\(hex)")
                #expect(di.deviceName == (e.count > 2 ? e[2] as? String : nil), "\(hex)")
                #expect(di.uuid == (e.count > 3 ? e[3] as? String : nil), "\(hex)")
                #expect(di.firmwareVersion == (e.count > 4 ? e[4] as? String : nil), "\(hex)")
                let undefined = e.dropFirst(5).compactMap { $0 as? [Any] }
                #expect(di.unknown.map { Int($0.type) } == undefined.map { $0[0] as! Int }, "\(hex)")
                #expect(di.unknown.map(\.value) == undefined.map { hexOf($0[1])! }, "\(hex)")
            }
        }
        for v in table(file, "TestDeviceInformationRecord.test_decode_error_data") {
            decodePayload(v[0] as! String, type: "Di") { _, errors in #expect(reports(errors, v[1] as! String), "\(errors)") }
        }
    }

    @Test func signature() {
        let file = "tests/test_signature.py"
        let valid = table(file, "TestSignatureRecord.test_decode_valid_data")
        #expect(valid.count == 5)
        for v in valid {
            let hex = v[0] as! String, e = v[1] as! [Any]
            decodePayload(hex, type: "Sig") { r, errors in
                #expect(errors.isEmpty, "\(hex): \(errors)")
                guard case .signature(let s) = r.decoded else { Issue.record("not Sig"); return }
                // SignatureRecord(signature_type, hash_type, signature, signature_uri,
                // certificate_format, certificate_store, certificate_uri); None = default.
                if let t = e[0] as? String { #expect(s.signatureTypeName == t, "\(hex)") } else { #expect(s.signatureType == 0, "\(hex)") }
                #expect(s.hashTypeName == (e[1] as? String ?? "SHA-256"), "\(hex)")
                if let sig = hexOf(e[2]) { #expect((s.signature ?? []) == sig, "\(hex)") }
                if let uri = e[3] as? String { #expect((s.signatureURI ?? "") == uri, "\(hex)") }
                #expect(s.certificateFormatName == (e[4] as? String ?? "X.509"), "\(hex)")
                if let store = e[5] as? [Any] { #expect(s.certificates == store.map { hexOf($0)! }, "\(hex)") }
                if let uri = e[6] as? String { #expect((s.certificateURI ?? "") == uri, "\(hex)") }
            }
        }
        let invalid = table(file, "TestSignatureRecord.test_decode_error_data")
        #expect(invalid.count == 5)
        for v in invalid {
            let hex = v[0] as! String
            decodePayload(hex, type: "Sig") { _, errors in #expect(reports(errors, v[1] as! String), "\(hex): \(errors)") }
        }
    }

    /// Every vector is used by one of the tests above: the tables they read, counted.
    @Test func everyTableIsRead() {
        let read: Set<String> = [
            "test_message_set_1", "test_message_set_2", "test_message_set_3", "test_message_set_4", "test_message_set_5",
            "TestDecode.wrong_decode_data",
        ]
        let all = Set(vectorTables.values.flatMap(\.keys))
        let recordTypeTables = all.subtracting(read)
        // The record-type tables all follow the Test<Type>Record.test_decode_<kind>_data pattern.
        for name in recordTypeTables {
            #expect(name.hasPrefix("Test") && name.contains("Record.test_decode_"), "\(name)")
        }
        #expect(all.count == 41)
    }
}
