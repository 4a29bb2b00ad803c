import Foundation
import Testing
@testable import NFCScope

// `nfcscope corenfc` (issue 17): declarations written here as XML plists, and as
// binary plists made by Python's plistlib at test time (an independent writer of
// Apple's format), against captures of the shared set already among the fixtures.
// Expected values come from the captures' bytes as cited, from the NFC Forum and
// EMV AIDs, and from Apple's documented rules (docs/corenfc.md), never from a run.

private let usage = "<key>NFCReaderUsageDescription</key><string>Reads tags</string>"

private func xmlPlist(_ body: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \(body)
    </dict>
    </plist>
    """
}

private func aids(_ list: [String]) -> String {
    usage + "<key>com.apple.developer.nfc.readersession.iso7816.select-identifiers</key><array>"
        + list.map { "<string>\($0)</string>" }.joined() + "</array>"
}

private func systemCodes(_ list: [String]) -> String {
    usage + "<key>com.apple.developer.nfc.readersession.felica.systemcodes</key><array>"
        + list.map { "<string>\($0)</string>" }.joined() + "</array>"
}

private func declarations(_ body: String, entitlements: String? = nil) throws -> CoreNFCDeclarations {
    let info = try PropertyList.parse(Array(xmlPlist(body).utf8))
    let ent = try entitlements.map { try PropertyList.parse(Array(xmlPlist($0).utf8)) }
    return CoreNFCDeclarations(infoPlist: info, entitlements: ent, registry: .builtin)
}

private func check(_ fixture: String, _ d: CoreNFCDeclarations, polling: CoreNFCPolling = .all) -> CoreNFCReport {
    CoreNFCCheck.run(capture: fixturePath(fixture), declarations: d, polling: polling)
}

private func rules(_ v: CoreNFCVerdict) -> [String] { v.reasons.map(\.rule) }

private let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// Runs a Python script; its stdout.
private func runPython(_ script: String, _ args: [String] = []) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: python!)
    process.arguments = ["-c", script] + args
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

private func temporaryPath(_ name: String) -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("nfcscope-corenfc-\(getpid())-\(name)").path
}

/// A binary plist written by plistlib from the JSON given (a dict of strings and arrays of strings).
private func binaryPlist(_ json: String, name: String) throws -> String {
    let path = temporaryPath(name)
    _ = try runPython("import json, plistlib, sys\nopen(sys.argv[2], 'wb').write(plistlib.dumps(json.loads(sys.argv[1]), fmt=plistlib.FMT_BINARY))",
                      [json, path])
    return path
}

@Suite struct CoreNFCTests {
    // MARK: Type 4 Tag

    /// libnfc's nfc-emulate-forum-tag4 run: frames 2-3 are the card's ATQA 0004 and SAK 20
    /// (ISO-DEP); frame 5 is `00 A4 04 00 07 D2760000850101 00`, frame 6 the answer `90 00`.
    /// D2760000850101 is the NDEF Tag Application (NFC Forum Type 4 Tag, NDEF app AID).
    @Test func type4TagWithTheNDEFApplicationDeclaredIsDeliveredWithThatAID() throws {
        let report = check("libnfc-nfc-emulate-forum-tag4-debug.log", try declarations(aids(["D2760000850101"])))
        #expect(report.verdicts.count == 1)
        let v = try #require(report.verdicts.first)
        #expect(v.tagType == .iso7816)
        #expect(v.polling == .iso14443)
        #expect(v.delivered == true)
        #expect(v.selectedAID == [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01])
        #expect(v.frames?.first == 2 && v.frames?.last == 16)
        #expect(rules(v).contains("aid-selected"))
        #expect(v.ndef == "readable")
        #expect(report.allDelivered)
    }

    @Test func type4TagWithoutTheNDEFApplicationDeclaredIsNotDelivered() throws {
        // An ePassport AID (ICAO 9303) the tag was never asked for.
        let report = check("libnfc-nfc-emulate-forum-tag4-debug.log", try declarations(aids(["A0000002471001"])))
        let v = try #require(report.verdicts.first)
        #expect(v.delivered == false)
        #expect(v.tagType == .iso7816)
        #expect(v.selectedAID == nil)
        let notSeen = try #require(v.reasons.first { $0.rule == "aid-not-seen" })
        #expect(notSeen.text.contains("A0000002471001"))
        #expect(notSeen.text.contains("not seen in the capture"))
        #expect(rules(v).contains("no-aid-answered"))
        #expect(v.reasons.first { $0.rule == "no-aid-answered" }?.source == .iso7816Tag)
        #expect(!report.allDelivered)
    }

    /// Declaration order decides: the ePassport AID first (not seen), then the NDEF one.
    @Test func firstAnsweredAIDInDeclarationOrderWinsAndEarlierUnseenOnesAreNamed() throws {
        let report = check("libnfc-nfc-emulate-forum-tag4-debug.log",
                           try declarations(aids(["A0000002471001", "D2760000850101"])))
        let v = try #require(report.verdicts.first)
        #expect(v.delivered == true)
        #expect(v.selectedAID.map(aidHex) == "D2760000850101")
        #expect(v.reasons.first { $0.rule == "aid-earlier-not-seen" }?.text.contains("A0000002471001") == true)
    }

    // MARK: EMV

    /// The Apple Pay Visa sniff: frame 632 selects A0000000031010 (Visa Credit/Debit, an EMV
    /// payment application) and frame 633 answers 9000; frame 631 is the PPSE answer listing
    /// 4F A0000000031010.
    @Test func emvCardWithItsPaymentAIDDeclaredIsNotDelivered() throws {
        let d = try declarations(aids(["A0000000031010"]))
        #expect(d.paymentAIDs == [[0xA0, 0, 0, 0, 0x03, 0x10, 0x10]])
        #expect(d.aids.isEmpty)
        #expect(d.mistakes.map(\.rule) == ["aid-payment"])
        let report = check("hf_visa_apple_normal.trace", d)
        #expect(report.verdicts.count == 1)
        let v = try #require(report.verdicts.first)
        #expect(v.delivered == false)
        #expect(v.tagType == .iso7816)
        let payment = try #require(v.reasons.first { $0.rule == "aid-payment" })
        #expect(payment.text.contains("cannot be declared"))
        #expect(payment.text.contains("9000"))
        #expect(payment.source == .talk)
    }

    @Test func ppseDirectorySupportsANotSeenVerdict() throws {
        let report = check("hf_visa_apple_normal.trace", try declarations(aids(["A0000000041010"])))
        let v = try #require(report.verdicts.first)
        #expect(v.delivered == false)
        // A0000000041010 is Mastercard's: a payment AID too, so it is refused as such.
        #expect(rules(v).contains("aid-payment"))
        let other = check("hf_visa_apple_normal.trace", try declarations(aids(["D2760000850101"])))
        let w = try #require(other.verdicts.first)
        let notSeen = try #require(w.reasons.first { $0.rule == "aid-not-seen" })
        #expect(notSeen.text.contains("PPSE directory, which lists its payment applications, names A0000000031010 and not this one"))
    }

    /// hf_mfdes_sniff: a HID reader reads a DESFire card with ISO-wrapped native commands
    /// (CLA 90, answers 91xx) and never SELECTs by DF name.
    @Test func desfireCardWithoutADeclaredAIDIsUndocumented() throws {
        let report = check("hf_mfdes_sniff.trace", try declarations(aids(["D2760000850101"])))
        let v = try #require(report.verdicts.first)
        #expect(v.delivered == nil)
        #expect(v.reasons.first { $0.rule == "mifare-desfire" }?.source == .undocumented)
        #expect(!report.allDelivered)
        // The same card answers 9000 to SELECT D2760000850100 (NDEF application, mapping
        // version 1.0): declared, it is selected like any ISO 7816 application.
        let declared = check("hf_mfdes_sniff.trace", try declarations(aids(["D2760000850100"])))
        #expect(declared.verdicts.first?.delivered == true)
        #expect(declared.verdicts.first?.selectedAID.map(aidHex) == "D2760000850100")
    }

    // MARK: FeliCa

    /// The farebot Suica dump: systems 0003, FE00 and 86A7 ("System 00: 0003" ...).
    @Test func suicaWithCJRCSystemCodeDeclaredIsDelivered() throws {
        let report = check("Suica.nfc", try declarations(systemCodes(["0003"])))
        let v = try #require(report.verdicts.first)
        #expect(v.frames == nil)
        #expect(v.tagType == .feliCa)
        #expect(v.polling == .iso18092)
        #expect(v.delivered == true)
        #expect(v.systemCode == 0x0003)
    }

    @Test func suicaWithOnly8008DeclaredIsNotDelivered() throws {
        let report = check("Suica.nfc", try declarations(systemCodes(["8008"])))
        let v = try #require(report.verdicts.first)
        #expect(v.delivered == false)
        #expect(v.systemCode == nil)
        let notSeen = try #require(v.reasons.first { $0.rule == "system-code-not-seen" })
        #expect(notSeen.text.contains("8008: not seen in the capture"))
        #expect(notSeen.text.contains("0003, 86A7, FE00"))
        #expect(rules(v).contains("no-system-code-answered"))
    }

    /// nfc-read-forum-tag3: frame 3 polls `00 FF FF 01 00` (wildcard, request code 01),
    /// frame 4 answers with request data 12 FC, the NDEF system (NFC Forum Type 3 Tag);
    /// frames 5-8 read the attribute block and the message.
    @Test func type3TagWith12FCDeclaredIsDeliveredAndItsNDEFIsReadable() throws {
        let report = check("libnfc-nfc-read-forum-tag3-debug.log", try declarations(systemCodes(["12FC"])))
        let v = try #require(report.verdicts.first)
        #expect(v.delivered == true)
        #expect(v.tagType == .feliCa)
        #expect(v.systemCode == 0x12FC)
        #expect(v.ndef == "readable")
        #expect(v.reasons.first { $0.rule == "system-code-answered" }?.text.contains("reported it in a Polling answer") == true)
    }

    @Test func wildcardSystemCodeIsAMistakeAndSelectsNothing() throws {
        let d = try declarations(systemCodes(["FFFF", "12FC", "12fc", "12F"]))
        #expect(d.systemCodes == [0x12FC])
        #expect(d.mistakes.map(\.rule) == ["system-code-wildcard", "system-code-duplicate", "hex-odd-length"])
        #expect(d.mistakes.first?.source == .feliCaSystemCodesKey)
    }

    // MARK: Type 2, NFC-V

    /// hf_14a_mfu: SAK 00 at frame 10 (UID complete), then READ commands: a Type 2 tag.
    @Test func type2TagIsSurfacedAsMiFare() throws {
        let report = check("hf_14a_mfu.trace", try declarations(usage))
        let v = try #require(report.verdicts.first)
        #expect(v.tagType == .miFare)
        #expect(v.delivered == true)
        #expect(v.frames?.first == 1 && v.frames?.last == 22)
        #expect(rules(v).contains("mifare-family"))
        #expect(v.reasons.first { $0.rule == "mifare-family" }?.source == .undocumented)
    }

    /// nfc-laboratory NFC-V recording: INVENTORY answered by UID E0040114B1A3DD03.
    @Test func nfcVTagWithoutISO15693PollingIsNotDelivered() throws {
        let d = try declarations(usage)
        let without = check("test_NFC-V_26kbps_001.json", d, polling: [.iso14443, .iso18092])
        let v = try #require(without.verdicts.first)
        #expect(v.delivered == false)
        #expect(v.tagType == .iso15693)
        #expect(v.polling == .iso15693)
        #expect(rules(v).first == "polling-missing")
        let with = check("test_NFC-V_26kbps_001.json", d, polling: .iso15693)
        #expect(with.verdicts.first?.delivered == true)
    }

    // MARK: Declarations

    @Test func plistMistakesAreFlagged() throws {
        let d = try declarations(aids(["D2760000850101", "D27600008501", "ABC", "D2760000850101", "A00000XX03", "A000"]),
                                 entitlements: "<key>com.apple.developer.nfc.readersession.formats</key><array><string>NDEF</string></array>")
        #expect(d.aids == [[0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01], [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01]])
        #expect(d.mistakes.map(\.rule) == ["hex-odd-length", "aid-duplicate", "hex-malformed", "aid-length", "formats-tag-missing"])
        #expect(!d.allowsTagReaderSession)
        let v = try #require(check("libnfc-nfc-emulate-forum-tag4-debug.log", d).verdicts.first)
        #expect(v.delivered == false)
        #expect(rules(v).contains("formats-tag-missing"))
        let missing = try declarations("<key>com.apple.developer.nfc.readersession.iso7816.select-identifiers</key><array/>")
        #expect(missing.mistakes.map(\.rule) == ["usage-description-missing"])
        // Without the usage description even a tag that needs no declaration is not delivered.
        let type2 = try #require(check("hf_14a_mfu.trace", missing).verdicts.first)
        #expect(type2.delivered == false)
        #expect(type2.reasons.first { $0.rule == "usage-description-missing" }?.source == .privacyPromptsSample)
    }

    @Test(.enabled(if: python != nil, "python3 is not installed: binary plists not made"))
    func binaryPlistsGiveTheSameVerdictsAsXML() throws {
        let info = try binaryPlist(#"{"NFCReaderUsageDescription": "Reads tags", "com.apple.developer.nfc.readersession.iso7816.select-identifiers": ["A0000002471001", "D2760000850101"], "com.apple.developer.nfc.readersession.felica.systemcodes": ["8008", "12FC"]}"#, name: "info.plist")
        let entitlements = try binaryPlist(#"{"com.apple.developer.nfc.readersession.formats": ["TAG"]}"#, name: "app.entitlements")
        defer { try? FileManager.default.removeItem(atPath: info); try? FileManager.default.removeItem(atPath: entitlements) }
        #expect(FileSystem.contents(of: info)?.starts(with: Array("bplist00".utf8)) == true)
        let d = CoreNFCDeclarations(infoPlist: try CoreNFCCheck.propertyList(path: info),
                                    entitlements: try CoreNFCCheck.propertyList(path: entitlements), registry: .builtin)
        #expect(d.aids.map(aidHex) == ["A0000002471001", "D2760000850101"])
        #expect(d.systemCodes == [0x8008, 0x12FC])
        #expect(d.formats == ["TAG"])
        #expect(d.mistakes.isEmpty)
        #expect(check("libnfc-nfc-emulate-forum-tag4-debug.log", d).verdicts.first?.selectedAID.map(aidHex) == "D2760000850101")
        #expect(check("libnfc-nfc-read-forum-tag3-debug.log", d).verdicts.first?.systemCode == 0x12FC)
    }

    /// plistlib writes the same values in both forms and prints them as JSON (bytes as
    /// hex, reals with repr): both parses must give exactly those values.
    @Test(.enabled(if: python != nil, "python3 is not installed: plists not compared with plistlib"))
    func propertyListReaderAgreesWithPlistlib() throws {
        let xml = temporaryPath("values.xml.plist"), binary = temporaryPath("values.bin.plist")
        defer { try? FileManager.default.removeItem(atPath: xml); try? FileManager.default.removeItem(atPath: binary) }
        let script = """
        import json, plistlib, sys
        v = {"s": "caf\\u00e9 \\u20ac \\U0001d11e <&>", "i": [0, 1, 255, 256, 65535, 65536, 2**31, 2**32, 2**63 - 1, -1, -2**63],
             "r": [0.5, -1.25, 1e300], "b": [True, False], "d": bytes(range(40)), "e": {}, "a": [[], [{"k": "v"}]],
             "long": "x" * 300, "dup": ["D2760000850101"] * 20}
        open(sys.argv[1], "wb").write(plistlib.dumps(v, fmt=plistlib.FMT_XML))
        open(sys.argv[2], "wb").write(plistlib.dumps(v, fmt=plistlib.FMT_BINARY))
        def j(x):
            if isinstance(x, bytes): return {"data": x.hex()}
            if isinstance(x, bool): return {"bool": x}
            if isinstance(x, float): return {"real": repr(x)}
            if isinstance(x, dict): return {"dict": sorted([k, j(w)] for k, w in x.items())}
            if isinstance(x, list): return [j(w) for w in x]
            return x
        print(json.dumps(j(v), sort_keys=True))
        """
        let expected = try runPython(script, [xml, binary]).trimmingCharacters(in: .whitespacesAndNewlines)
        func j(_ v: PropertyListValue) -> Any {
            switch v {
            case .string(let s): return s
            case .integer(let i): return i
            case .real(let r): return ["real": r]
            case .bool(let b): return ["bool": b]
            case .data(let d): return ["data": d.map { String(format: "%02x", $0) }.joined()]
            case .date(let s): return s
            case .array(let a): return a.map(j)
            case .dictionary(let e): return ["dict": e.sorted { $0.key < $1.key }.map { [$0.key, j($0.value)] }]
            }
        }
        let parsedExpected = try JSONSerialization.jsonObject(with: Data(expected.utf8)) as! NSObject
        for path in [xml, binary] {
            let value = try PropertyList.parse(FileSystem.contents(of: path) ?? [])
            // Reals: plistlib prints repr(); compare as numbers after the round trip.
            let mine = try JSONSerialization.data(withJSONObject: j(value), options: [.sortedKeys])
            var theirs = try JSONSerialization.jsonObject(with: JSONSerialization.data(withJSONObject: parsedExpected, options: [.sortedKeys])) as! [String: Any]
            if var dict = theirs["dict"] as? [[Any]] {
                dict = dict.map { pair in
                    guard pair[0] as? String == "r", let reals = pair[1] as? [[String: String]] else { return pair }
                    return [pair[0], reals.map { ["real": Double($0["real"]!)!] }]
                }
                theirs["dict"] = dict
            }
            let theirsData = try JSONSerialization.data(withJSONObject: theirs, options: [.sortedKeys])
            #expect(String(decoding: mine, as: UTF8.self) == String(decoding: theirsData, as: UTF8.self), "\(path)")
        }
        // Every truncation and every single-byte change of the binary form is refused or
        // read, never a crash or a hang.
        let bytes = FileSystem.contents(of: binary) ?? []
        for n in 0..<bytes.count { _ = try? PropertyList.parse(Array(bytes[..<n])) }
        for i in bytes.indices {
            var b = bytes
            b[i] ^= 0xFF
            _ = try? PropertyList.parse(b)
        }
    }

    @Test func malformedPlistsNameWhereTheyGoWrong() {
        #expect(throws: PropertyListError.self) { try PropertyList.parse(Array("<plist><dict><key>a</key></dict></plist>".utf8)) }
        do {
            _ = try PropertyList.parse(Array("<plist>\n<array>\n<strin>x</strin></array></plist>".utf8))
            Issue.record("no error")
        } catch {
            #expect(error.line == 3)
        }
        do {
            _ = try PropertyList.parse(Array("bplist00".utf8) + [UInt8](repeating: 0, count: 40))
            Issue.record("no error")
        } catch {
            #expect(error.offset != nil)
        }
    }

    /// Every capture among the fixtures: no crash, every card has reasons, sessions are
    /// in order and do not overlap, and a delivered card names its tag type, AID or code.
    @Test func everyFixtureIsJudgedSanely() throws {
        let d = try declarations(aids(["D2760000850101", "A0000002471001"]) + "<key>com.apple.developer.nfc.readersession.felica.systemcodes</key><array><string>12FC</string></array>")
        let folder = fixturePath("")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        var judged = 0
        for name in names where !name.hasSuffix(".md") {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            let report = check(name, d)
            var previousLast = 0
            for v in report.verdicts {
                judged += 1
                #expect(!v.reasons.isEmpty, "\(name)")
                if let f = v.frames {
                    #expect(f.first >= 1 && f.first <= f.last && f.first > previousLast, "\(name) \(f)")
                    previousLast = f.last
                }
                if v.delivered == true { #expect(v.tagType != nil, "\(name)") }
                if v.tagType == .iso7816, v.delivered == true { #expect(v.selectedAID != nil, "\(name)") }
                if v.tagType == .feliCa, v.delivered == true { #expect(v.systemCode != nil, "\(name)") }
            }
        }
        #expect(judged > 40)
    }

    // MARK: Output and exit status

    @Test func jsonLinesRecordsAndExitStatus() throws {
        let path = temporaryPath("t4.plist")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try xmlPlist(aids(["D2760000850101"])).write(toFile: path, atomically: true, encoding: .utf8)
        let out = OutputBuffer()
        var errors: [String] = []
        let status = CommandLineTool.run(["corenfc", "--format", "jsonl", "--plist", path,
                                          fixturePath("libnfc-nfc-emulate-forum-tag4-debug.log")],
                                         out: out, outputIsTerminal: false) { errors.append($0) }
        #expect(status == 0)
        #expect(errors.isEmpty)
        let lines = out.string.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("{\"type\":\"corenfc_declarations\"") == true)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(lines[1].utf8)) as? [String: Any])
        #expect(record["type"] as? String == "corenfc")
        #expect(record["session"] as? [Int] == [2, 16])
        #expect(record["polling"] as? String == "iso14443")
        #expect(record["tag_type"] as? String == "iso7816")
        #expect(record["delivered"] as? Bool == true)
        #expect(record["selected_aid"] as? String == "D2760000850101")
        #expect((record["reasons"] as? [[String: String]])?.allSatisfy { $0["rule"] != nil && $0["source"] != nil } == true)

        let refused = CommandLineTool.run(["corenfc", "--plist", path, fixturePath("hf_14a_mfu.trace"),
                                           "--polling", "iso15693"], out: OutputBuffer(), outputIsTerminal: false) { _ in }
        #expect(refused == 1)
        let trouble = CommandLineTool.run(["corenfc", "--plist", path + ".missing", fixturePath("hf_14a_mfu.trace")],
                                          out: OutputBuffer(), outputIsTerminal: false) { _ in }
        #expect(trouble == 2)
        let usage = CommandLineTool.run(["corenfc", fixturePath("hf_14a_mfu.trace")],
                                        out: OutputBuffer(), outputIsTerminal: false) { _ in }
        #expect(usage == 2)
        let badPolling = CommandLineTool.run(["corenfc", "--plist", path, "--polling", "nfc-a", fixturePath("hf_14a_mfu.trace")],
                                             out: OutputBuffer(), outputIsTerminal: false) { _ in }
        #expect(badPolling == 2)
    }
}
