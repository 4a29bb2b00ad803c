import Foundation
import Testing
@testable import NFCScope

// Hand-built messages: bytes laid out per the NFC Forum specifications cited at each
// test (through `ndefRecord`, NDEF 1.0 section 3.2), expected values read from those
// specifications, not from nfcscope's output.

@Suite struct NDEFMessageTests {
    /// NDEF 1.0 section 3.3.3: the first chunk (CF) carries type and id, middle and
    /// terminating chunks have TNF 6 and no type; the payload is their concatenation.
    @Test func chunkedTextRecord() {
        let message = ndefRecord(mb: true, cf: true, tnf: 1, type: "T", id: "c", payload: [0x02, 0x65, 0x6E, 0x48]) // "en", "H"
            + ndefRecord(cf: true, tnf: 6, payload: Array("ell".utf8))
            + ndefRecord(me: true, tnf: 6, payload: Array("o, chunks".utf8))
        ByteView.with(message) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.errors.isEmpty, "\(m.errors)")
            #expect(m.records.count == 1)
            guard let r = m.records.first else { return }
            #expect(r.chunks.count == 3 && r.mb && r.me && r.header.cf)
            #expect(r.chunks.map(\.header.tnfCode) == [1, 6, 6])
            #expect(r.chunks.map(\.offset) == [0, 10, 16]) // 4 header bytes + "T" + "c" + 4; 3 + 3
            #expect(r.typeString == "T" && r.id?.array == Array("c".utf8))
            #expect(r.payload.array == [0x02, 0x65, 0x6E] + Array("Hello, chunks".utf8))
            guard case .text(let t) = r.decoded else { Issue.record("not text"); return }
            #expect(t.text == "Hello, chunks" && t.language == "en")
            guard let json = ndefJSON(m) else { return }
            let record = (json.object["records"] as? [[String: Any]])?.first
            #expect(record?["chunks"] as? Int == 3)
            #expect(record?["text"] as? String == "Hello, chunks")
            #expect(record?["id"] as? String == "c")
        }
    }

    @Test func chunkViolations() {
        // A middle chunk with a type and TNF 1, then a terminating chunk with IL set.
        let message = ndefRecord(mb: true, cf: true, tnf: 2, type: "text/plain", payload: Array("ab".utf8))
            + ndefRecord(cf: true, tnf: 1, type: "x", payload: Array("cd".utf8))
            + ndefRecord(me: true, tnf: 6, id: "i", payload: Array("ef".utf8))
        ByteView.with(message) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.records.count == 1)
            #expect(m.records.first?.payload.array == Array("abcdef".utf8))
            #expect(m.errors.contains { $0.offset == 15 && $0.message.contains("must have TNF 6") })
            #expect(m.errors.contains { $0.offset == 15 && $0.message.contains("TYPE_LENGTH 1") })
            #expect(m.errors.contains { $0.offset == 21 && $0.message.contains("IL flag") })
        }
        // A message ending inside a chunk sequence keeps what it read.
        let open = ndefRecord(mb: true, cf: true, tnf: 5, payload: [1, 2]) + ndefRecord(cf: true, tnf: 6, payload: [3])
        ByteView.with(open) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.records.first?.payload.array == [1, 2, 3])
            #expect(m.errors.contains { $0.message.contains("not terminated") })
            #expect(m.errors.contains { $0.message.contains("ME flag not set") })
        }
    }

    @Test func violationsKeepRecordsAndOffsets() {
        // Record 2 is TNF empty with a payload, record 3's payload runs past the end.
        let good = ndefRecord(mb: true, tnf: 1, type: "U", payload: [0x04] + Array("a.b".utf8))
        let bad = ndefRecord(tnf: 0, payload: [0xAA])
        var cut = ndefRecord(me: true, tnf: 1, type: "T", payload: [0x02, 0x65, 0x6E, 0x41, 0x42])
        cut.removeLast(2)
        ByteView.with(good + bad + cut) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.records.count == 2)
            if case .uri(let u)? = m.records.first?.decoded { #expect(u.uri == "https://a.b") } else { Issue.record("no URI") }
            #expect(m.errors.contains { $0.offset == good.count && $0.message.contains("PAYLOAD_LENGTH must be 0") })
            #expect(m.errors.contains { $0.offset == good.count + bad.count && $0.message.contains("PAYLOAD field") })
        }
        // Trailing bytes after ME.
        ByteView.with(ndefRecord(mb: true, me: true, tnf: 0, payload: []) + [0x00, 0x00]) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.records.count == 1)
            #expect(m.errors == [NDEFError(offset: 3, message: "2 trailing bytes after the record with the ME flag")])
        }
        // A 4-byte PAYLOAD_LENGTH near Int32 max: no overflow, an underflow error.
        ByteView.with([0xC1, 0x01, 0x7F, 0xFF, 0xFF, 0xFF, 0x55, 0x00]) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.records.isEmpty)
            #expect(m.errors.contains { $0.offset == 0 && $0.message.contains("PAYLOAD field") })
        }
    }

    /// Smart Poster RTD 1.0: URI, titles in two languages, action, size, type, icon.
    @Test func smartPoster() {
        let inner = ndefRecord(mb: true, tnf: 1, type: "U", payload: [0x01] + Array("nfc-forum.org".utf8))
            + ndefRecord(tnf: 1, type: "T", payload: [0x02] + Array("enNFC Forum".utf8))
            + ndefRecord(tnf: 1, type: "T", payload: [0x85] + Array("fr-CA".utf8) + [0xFE, 0xFF, 0x00, 0xC9, 0x00, 0x74, 0x00, 0xE9])
            + ndefRecord(tnf: 1, type: "act", payload: [0x01])
            + ndefRecord(tnf: 1, type: "s", payload: [0x00, 0x00, 0x10, 0x00])
            + ndefRecord(tnf: 1, type: "t", payload: Array("text/html".utf8))
            + ndefRecord(me: true, tnf: 2, type: "image/png", payload: [0x89, 0x50, 0x4E, 0x47])
        let message = ndefRecord(mb: true, me: true, tnf: 1, type: "Sp", payload: inner)
        ByteView.with(message) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.errors.isEmpty, "\(m.errors)")
            guard case .smartPoster(let sp)? = m.records.first?.decoded else { Issue.record("not a Smart Poster"); return }
            #expect(sp.uri == "http://www.nfc-forum.org")
            #expect(sp.titles.map(\.language) == ["en", "fr-CA"])
            // UTF-16 big-endian with BOM FEFF: U+00C9 U+0074 U+00E9.
            #expect(sp.titles.map(\.text) == ["NFC Forum", "\u{C9}t\u{E9}"])
            #expect(sp.action?.name == "save" && sp.size == 4096 && sp.targetType == "text/html")
            #expect(sp.icons.map(\.mime) == ["image/png"])
            guard let json = ndefJSON(m) else { return }
            let r = (json.object["records"] as? [[String: Any]])?.first
            #expect(r?["name"] as? String == "Smart Poster")
            #expect(r?["uri"] as? String == "http://www.nfc-forum.org")
            #expect((r?["records"] as? [[String: Any]])?.count == 7)
            #expect((r?["titles"] as? [[String: Any]])?.last?["text"] as? String == "\u{C9}t\u{E9}")
            let text = ndefText(m)
            #expect(text.contains("title: [fr-CA] \u{C9}t\u{E9}"))
            #expect(text.contains("uri: http://www.nfc-forum.org"))
        }
    }

    /// Connection Handover 1.3 Handover Select with two alternative carriers: Bluetooth
    /// LE (Bluetooth SSP using NFC, AD types from the Bluetooth assigned numbers) and
    /// Wi-Fi (WSC credential attributes, Wi-Fi Simple Configuration v2).
    static let handoverMessage: [UInt8] = {
        let carriers = ndefRecord(mb: true, tnf: 1, type: "ac", payload: [0x01, 0x01, 0x30, 0x00])
            + ndefRecord(me: true, tnf: 1, type: "ac", payload: [0x02, 0x01, 0x31, 0x00])
        let le: [UInt8] = [0x08, 0x1B, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x01] // LE address, random
            + [0x02, 0x1C, 0x02] // LE role
            + [0x0A, 0x09] + Array("nfcscope1".utf8) // complete local name
            + [0x11, 0x10, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF] // TK
            + [0x03, 0x19, 0xC1, 0x03] // appearance 0x03C1
            + [0x05, 0x03, 0x0F, 0x18, 0x0A, 0x18] // complete 16-bit UUIDs 180F, 180A
        let credential: [UInt8] = [0x10, 0x26, 0x00, 0x01, 0x01]
            + [0x10, 0x45, 0x00, 0x07] + Array("HomeNet".utf8)
            + [0x10, 0x03, 0x00, 0x02, 0x00, 0x20]
            + [0x10, 0x0F, 0x00, 0x02, 0x00, 0x08]
            + [0x10, 0x27, 0x00, 0x0C] + Array("s3cr3t-pa55!".utf8)
            + [0x10, 0x20, 0x00, 0x06, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55]
        let wsc: [UInt8] = [0x10, 0x4A, 0x00, 0x01, 0x10]
            + [0x10, 0x0E, 0x00, UInt8(credential.count)] + credential
            + [0x10, 0x49, 0x00, 0x06, 0x00, 0x37, 0x2A, 0x00, 0x01, 0x20]
        return ndefRecord(mb: true, tnf: 1, type: "Hs", payload: [0x13] + carriers)
            + ndefRecord(tnf: 2, type: "application/vnd.bluetooth.le.oob", id: "0", payload: le)
            + ndefRecord(me: true, tnf: 2, type: "application/vnd.wfa.wsc", id: "1", payload: wsc)
    }()

    @Test func handoverWithBluetoothLEAndWiFi() {
        ByteView.with(Self.handoverMessage) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.errors.isEmpty, "\(m.errors)")
            #expect(m.records.count == 3)
            guard case .handover(let hs)? = m.records.first?.decoded else { Issue.record("no Hs"); return }
            #expect(hs.kind == .select && hs.major == 1 && hs.minor == 3)
            #expect(hs.alternativeCarriers.map(\.powerStateName) == ["active", "activating"])
            #expect(hs.alternativeCarriers.map(\.dataReference) == [[0x30], [0x31]])
            // The carrier references name the carrier records' ids.
            #expect(m.records.dropFirst().map { $0.id?.array ?? [] } == [[0x30], [0x31]])

            guard case .bluetooth(let le) = m.records[1].decoded else { Issue.record("no LE OOB"); return }
            #expect(le.lowEnergy && le.address == "11:22:33:44:55:66" && le.addressType == "random")
            #expect(le.role == 2 && le.roleName == "peripheral and central, peripheral preferred")
            #expect(le.localName == "nfcscope1" && le.localNameComplete)
            #expect(le.appearance == 0x03C1)
            #expect(le.uuids == ["180f", "180a"])
            #expect(m.records[1].secretRanges.count == 1)

            guard case .wifi(let w) = m.records[2].decoded else { Issue.record("no WSC"); return }
            #expect(w.version == 0x10 && w.version2 == 0x20)
            let c = w.credentials.first
            #expect(c?.networkIndex == 1 && c?.ssid == Array("HomeNet".utf8))
            #expect(c.flatMap(\.authenticationType).map(NDEFWiFiSimpleConfig.authenticationNames) == ["WPA2-Personal"])
            #expect(c.flatMap(\.encryptionType).map(NDEFWiFiSimpleConfig.encryptionNames) == ["AES"])
            #expect(c?.macAddress == "00:11:22:33:44:55")
            if let range = c?.networkKey { #expect(m.records[2].payload.slice(range.lowerBound, range.count)?.array == Array("s3cr3t-pa55!".utf8)) }
            #expect(Set(m.secretValues) == [Array("s3cr3t-pa55!".utf8), Array(0x00...0xFF).filter { $0 % 0x11 == 0 }])

            // Unmasked, the key is shown; masked, neither it nor the TK appears anywhere.
            guard let plain = ndefJSON(m, mask: false), let masked = ndefJSON(m, mask: true) else { return }
            #expect(plain.text.contains("\"network_key\":\"s3cr3t-pa55!\""))
            let keyHex = Array("s3cr3t-pa55!".utf8).map { String(format: "%02x", $0) }.joined()
            for secret in ["s3cr3t-pa55!", keyHex, "00112233445566778899aabbccddeeff"] {
                #expect(!masked.text.contains(secret), "\(secret) in \(masked.text)")
                #expect(!ndefText(m, mask: true).contains(secret))
            }
            #expect(masked.text.contains("\"network_key\":\"************\""))
            #expect(masked.text.contains("\"ssid\":\"HomeNet\""))
            let records = masked.object["records"] as? [[String: Any]]
            #expect(records?[1]["carrier"] as? String == "bluetooth_le")
            #expect(records?[2]["carrier"] as? String == "wifi_wsc")
            #expect(records?[0]["name"] as? String == "Handover Select")
        }
    }

    /// Bluetooth EP OOB (BR/EDR): OOB length, BD_ADDR least significant byte first, EIR.
    @Test func bluetoothEPOOB() {
        let eir: [UInt8] = [0x04, 0x0D, 0x04, 0x04, 0x20] // class of device 200404
            + [0x05, 0x09] + Array("Spkr".utf8)
            + [0x03, 0x03, 0x0B, 0x11] // Audio Sink 110B
        let payload: [UInt8] = [UInt8(8 + eir.count), 0x00, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01] + eir
        ByteView.with(ndefRecord(mb: true, me: true, tnf: 2, type: "application/vnd.bluetooth.ep.oob", payload: payload)) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.errors.isEmpty, "\(m.errors)")
            guard case .bluetooth(let b)? = m.records.first?.decoded else { Issue.record("no EP OOB"); return }
            #expect(!b.lowEnergy && b.oobLength == payload.count && b.address == "01:02:03:04:05:06")
            #expect(b.classOfDevice == 0x200404)
            // 0x200404: major class 4 (Audio/Video), minor 1, service bit 21 (Audio).
            #expect(b.classOfDevice.flatMap(NDEFBluetoothOOB.majorDeviceClassName) == "Audio/Video")
            #expect(b.classOfDevice.map(NDEFBluetoothOOB.serviceClassNames) == ["Audio"])
            #expect(b.localName == "Spkr" && b.uuids == ["110b"])
        }
    }

    @Test func mediaExternalAbsolute() {
        let message = ndefRecord(mb: true, tnf: 2, type: "text/plain; charset=utf-8", payload: Array("h\u{E9}".utf8))
            + ndefRecord(tnf: 2, type: "text/vcard", payload: Array("BEGIN:VCARD\r\nEND:VCARD\r\n".utf8))
            + ndefRecord(tnf: 2, type: "application/octet-stream", payload: [0xFF, 0x00])
            + ndefRecord(tnf: 2, type: "text/plain", payload: [0xFF, 0xFE])
            + ndefRecord(tnf: 4, type: "android.com:pkg", payload: Array("org.example.app".utf8))
            + ndefRecord(tnf: 4, type: "example.com:t", payload: [0x01])
            + ndefRecord(me: true, tnf: 3, type: "https://example.com/x", payload: [])
        ByteView.with(message) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.errors.isEmpty, "\(m.errors)")
            let d = m.records.map(\.decoded)
            if case .mediaText(let s) = d[0] { #expect(s == "h\u{E9}") } else { Issue.record("text/plain") }
            if case .mediaText(let s) = d[1] { #expect(s.hasPrefix("BEGIN:VCARD")) } else { Issue.record("vcard") }
            if case .none = d[2] {} else { Issue.record("octet-stream decoded") }
            if case .none = d[3] {} else { Issue.record("invalid UTF-8 shown as text") }
            if case .androidApplication(let p) = d[4] { #expect(p == "org.example.app") } else { Issue.record("AAR") }
            if case .none = d[5] {} else { Issue.record("unknown external type decoded") }
            if case .absoluteURI(let u) = d[6] { #expect(u == "https://example.com/x") } else { Issue.record("absolute URI") }
            guard let json = ndefJSON(m) else { return }
            let records = json.object["records"] as? [[String: Any]]
            #expect(records?[4]["name"] as? String == "Android Application Record")
            #expect(records?[0]["mime"] as? String == "text/plain; charset=utf-8")
            #expect(records?[3]["payload"] as? String == "fffe")
            #expect(records?[6]["tnf"] as? String == "absolute_uri" && records?[6]["tnf_code"] as? Int == 3)
        }
    }

    /// Types and ids with bytes that are not UTF-8, text with control characters: the
    /// JSON stays valid and the text output keeps one line per field.
    @Test func hostileStrings() {
        let message = ndefRecord(mb: true, tnf: 4, type: "a\u{22}\\\u{01}", id: "\u{0A}x", payload: [])
            + [0x19, 0x02, 0x01, 0x01, 0xC3, 0x28, 0xFF, 0x00] // well-known, type C3 28 (invalid UTF-8), id FF
            + ndefRecord(me: true, tnf: 1, type: "T", payload: [0x02] + Array("en".utf8) + Array("a\nb\u{7}\"".utf8))
        ByteView.with(message) { v in
            let m = NDEFMessage(parsing: v)
            guard let json = ndefJSON(m) else { return }
            let records = json.object["records"] as? [[String: Any]]
            #expect(records?[0]["type"] as? String == "a\"\\\\x01")
            #expect(records?[1]["type"] as? String == "\\xC3(")
            #expect(records?[2]["text"] as? String == "a\nb\u{7}\"")
            let text = ndefText(m)
            #expect(text.contains("text: a\\x0Ab\\x07\""))
        }
    }

    @Test func nestingDepthIsCapped() {
        var inner = ndefRecord(mb: true, me: true, tnf: 1, type: "U", payload: [0x00, 0x61])
        for _ in 0..<7 { inner = ndefRecord(mb: true, me: true, tnf: 1, type: "Sp", payload: inner) }
        ByteView.with(inner) { v in
            let m = NDEFMessage(parsing: v)
            #expect(m.errors.contains { $0.message.contains("deeper than \(NDEFMessage.maxDepth)") })
            var depth = 0
            var current: NDEFMessage? = m
            while let next = current?.records.first?.decoded.nestedMessage { depth += 1; current = next }
            #expect(depth == NDEFMessage.maxDepth)
            _ = ndefJSON(m)
        }
    }

    /// Random and mutated input: no crash, JSON always valid without duplicate keys.
    @Test func randomInputIsSafe() {
        var rng = XorShift64(state: 0x5EED_1234_ABCD)
        let seeds: [[UInt8]] = [Self.handoverMessage,
                                ndefRecord(mb: true, me: true, tnf: 1, type: "Sp",
                                           payload: ndefRecord(mb: true, me: true, tnf: 1, type: "U", payload: [1, 0x61]))]
        for n in 0..<1500 {
            var input: [UInt8]
            if n % 2 == 0 {
                input = (0..<Int(rng.next() % 48)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            } else {
                input = seeds[n % seeds.count]
                for _ in 0..<(1 + Int(rng.next() % 4)) where !input.isEmpty {
                    input[Int(rng.next() % UInt64(input.count))] = UInt8(truncatingIfNeeded: rng.next())
                }
            }
            ByteView.with(input) { v in
                let m = NDEFMessage(parsing: v)
                _ = ndefJSON(m, mask: n % 3 == 0)
                _ = ndefText(m, mask: true)
                let memory = NDEFTagMemory(dataArea: v, baseAddress: 16)
                for message in memory.messages { _ = message.parse() }
            }
        }
    }
}

/// Marsaglia's xorshift64: reproducible input for the robustness test.
struct XorShift64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
