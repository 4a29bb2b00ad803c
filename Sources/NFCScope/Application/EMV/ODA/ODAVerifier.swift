// Offline data authentication redone from a capture (EMV Book 2 sections 5 and 6,
// Book 3 10.3; Visa's fDDA as the contactless specification describes it): the CA
// key named by 8F recovers the issuer key (90, 92, 9F32), which recovers the ICC key
// (9F46, 9F48, 9F47) or the signed static data (93); the ICC key recovers the
// signed dynamic data (9F4B) of INTERNAL AUTHENTICATE (DDA), of the GPO answer or
// a record (fDDA), or of GENERATE AC (CDA). Each check ends as verified, failed at
// a named step, or not possible with the reason (a key or data missing).

enum ODAVerifier {
    /// A step that ended the check.
    fileprivate struct Stop: Error {
        var outcome: ODAResult.Outcome
        var step: String?
        var reason: String
        /// A usual stop, whose texts the verdict makes when read (`step` and `reason` unused).
        var usual = ODAResult.UsualStop.none
        static func failed(_ step: String, _ reason: String) -> Stop { Stop(outcome: .failed, step: step, reason: reason) }
        static func missing(_ reason: String) -> Stop { Stop(outcome: .notPossible, step: nil, reason: reason) }
    }

    /// The verdict for a session, nil when it showed nothing of an EMV application.
    static func verify(_ e: ODAEvidence, registry: Registry) -> ODAResult? {
        var result: ODAResult?
        verify(e, registry: registry, into: &result)
        return result
    }

    /// `verify`, written into `result` where it lies (the session end's summary): the
    /// verdict (a struct of several hundred bytes) was copied four times on its way there.
    /// `reasons`: what the session end keeps from one session to the next (the CA keys'
    /// lengths looked up), nil to look them up each time.
    static func verify(_ e: ODAEvidence, registry: Registry, reasons: LengthReasons? = nil,
                       into result: inout ODAResult?) {
        var verdict = result ?? ODAResult(method: nil, result: .notPossible, usual: .none)
        result = nil
        if verify(e, registry: registry, reasons: reasons, renewing: &verdict) { result = verdict }
    }

    /// `verify` written over `result` (the summary's stored verdict, `TransactionSummary.odaVerdict`)
    /// field by field, as `renew` does; false, `result` left as it was, when there is none.
    static func verify(_ e: ODAEvidence, registry: Registry, reasons: LengthReasons?,
                       renewing result: inout ODAResult) -> Bool {
        let cdaAC = e.generateACs.last { $0.signedDynamicData != nil }
        let method: ODAResult.Method
        if cdaAC != nil {
            method = .cda
        } else if e.internalAuthenticate != nil {
            method = .dda
        } else if e.fddaSignature != nil {
            method = .fdda
        } else if e.card.contains(0x93) {
            method = .sda
        } else {
            guard let aip = e.card.firstByte(0x82) else { return false }
            // The reason kept as the AIP's byte (its text made when read or written).
            result.renew(method: nil, outcome: .notPossible, usual: .noSignedData(aip: aip))
            return true
        }
        result.renew(method: method, outcome: .verified, usual: .none)
        do throws(Stop) {
            try result.check(method, e, cdaAC, registry, reasons)
        } catch {
            result.result = error.outcome
            if error.usual != .none {
                result.usual = error.usual
            } else {
                result.step = error.step
                result.reason = error.reason
            }
        }
        return true
    }

    /// `result = ODAResult(method: method, result: outcome, usual: usual)`, written over
    /// the verdict `result` holds (the last session's) field by field, the fields at a new
    /// verdict's values left as they are: assigned whole, the old verdict (~480 bytes)
    /// was destroyed through its value witness and the new one copied in (~220
    /// instructions a session end).
    static func renew(_ result: inout ODAResult?, method: ODAResult.Method?, outcome: ODAResult.Outcome,
                      usual: ODAResult.UsualStop) {
        guard case .some = result else {
            result = ODAResult(method: method, result: outcome, usual: usual)
            return
        }
        // Unwrapped once (each `result!` read the optional's case through an outlined call).
        result!.renew(method: method, outcome: outcome, usual: usual)
    }

    /// The notes of checks not made, as the arrays `run` shows (shared, not made per session).
    enum Notes {
        static let date = "certificate expiry not checked: no transaction date (9A) in the capture"
        static let pan = "certificate PAN not compared: no PAN in the capture"
        static let noDateNoPAN = [date, pan]
        static let noDate = [date]
        static let noPAN = [pan]

        /// Each array as the record's JSON writes it (`ODARendering`).
        static var noDateNoPANJSON: StaticString {
            "[\"certificate expiry not checked: no transaction date (9A) in the capture\",\"certificate PAN not compared: no PAN in the capture\"]"
        }
        static var noDateJSON: StaticString { "[\"certificate expiry not checked: no transaction date (9A) in the capture\"]" }
        static var noPANJSON: StaticString { "[\"certificate PAN not compared: no PAN in the capture\"]" }
    }

    /// The reason when the AIP names methods but no signed data was seen (literals:
    /// no String is built per session).
    static func noSignedData(aip: UInt8) -> String {
        switch (aip & 0x40 != 0, aip & 0x20 != 0, aip & 0x01 != 0) {
        case (false, false, false): "the card supports no offline data authentication (AIP)"
        case (true, false, false): "no signed data in the capture (the AIP says SDA supported)"
        case (false, true, false): "no signed data in the capture (the AIP says DDA supported)"
        case (false, false, true): "no signed data in the capture (the AIP says CDA supported)"
        case (true, true, false): "no signed data in the capture (the AIP says SDA, DDA supported)"
        case (true, false, true): "no signed data in the capture (the AIP says SDA, CDA supported)"
        case (false, true, true): "no signed data in the capture (the AIP says DDA, CDA supported)"
        case (true, true, true): "no signed data in the capture (the AIP says SDA, DDA, CDA supported)"
        }
    }

    /// `noSignedData(aip:)` as a JSON string (quoted; nothing in it to escape).
    static func noSignedDataJSON(aip: UInt8) -> StaticString {
        switch (aip & 0x40 != 0, aip & 0x20 != 0, aip & 0x01 != 0) {
        case (false, false, false): "\"the card supports no offline data authentication (AIP)\""
        case (true, false, false): "\"no signed data in the capture (the AIP says SDA supported)\""
        case (false, true, false): "\"no signed data in the capture (the AIP says DDA supported)\""
        case (false, false, true): "\"no signed data in the capture (the AIP says CDA supported)\""
        case (true, true, false): "\"no signed data in the capture (the AIP says SDA, DDA supported)\""
        case (true, false, true): "\"no signed data in the capture (the AIP says SDA, CDA supported)\""
        case (false, true, true): "\"no signed data in the capture (the AIP says DDA, CDA supported)\""
        case (true, true, true): "\"no signed data in the capture (the AIP says SDA, DDA, CDA supported)\""
        }
    }

    /// The reason of the issuer certificate length check, as `run` words it.
    static func lengthReason(certificate: Int, key: Int) -> String {
        var text = SummaryText()
        text.add("the certificate is "); text.add(certificate)
        text.add(" bytes, the CA key "); text.add(key)
        return text.string
    }

    /// (The verifier no longer makes the length reason: the verdict keeps the two lengths,
    /// `ODAResult.UsualStop`; `reason` stays for its tests. The CA keys' lengths are used.)
    /// The reasons of the issuer certificate length check made before, by the two
    /// lengths: most sessions of synthetic and altered captures stop there, with a few
    /// hundred pairs between them (the reason was built and freed at each session end).
    /// Direct-mapped by the two lengths (a colliding pair replaces the entry): the
    /// dictionary's hashing cost ~560 instructions a session end.
    final class LengthReasons {
        private struct Entry {
            var certificate = 0
            var key = 0
            /// nil while the entry is empty.
            var text: String?
        }
        // Used by one session end at a time (the decode's own card session).
        @exclusivity(unchecked) private var made: [Entry] = []
        /// Entries kept (a power of two).
        static let capacity = 1024

        /// The modulus lengths of the keys of a RID and index (`Registry.caPublicKeys(rid:index:)`,
        /// in order) for the last few asked: a capture's cards name the same few keys, and
        /// the registry's answer took a lock and a copy of the key list, ~500 instructions
        /// a session end. A registry's keys do not change.
        private struct KeyLengths {
            let registry: Registry
            let rid: [UInt8]
            let index: UInt8
            let lengths: [Int]
        }
        @exclusivity(unchecked) private var keyLengths: [KeyLengths] = []
        @exclusivity(unchecked) private var nextKeyLengths = 0
        static let keyLengthsCapacity = 4

        /// `registry.caPublicKeyLengths(rid:index:matching:)`.
        func caPublicKeyLengths(_ registry: Registry, rid: [UInt8], index: UInt8,
                                matching length: Int) -> (count: Int, firstLength: Int, matches: Bool) {
            let lengths = modulusLengths(registry, rid: rid, index: index)
            return (lengths.count, lengths.first ?? 0, lengths.contains(length))
        }

        private func modulusLengths(_ registry: Registry, rid: [UInt8], index: UInt8) -> [Int] {
            var i = 0
            while i < keyLengths.count {
                // The RID is usually the same array (the evidence's recent RIDs): `==` tests identity first.
                if keyLengths[i].registry === registry, keyLengths[i].index == index, keyLengths[i].rid == rid {
                    return keyLengths[i].lengths
                }
                i += 1
            }
            let lengths = registry.caPublicKeys(rid: rid, index: index).map { $0.modulus.count }
            let entry = KeyLengths(registry: registry, rid: rid, index: index, lengths: lengths)
            if keyLengths.count < LengthReasons.keyLengthsCapacity {
                keyLengths.append(entry)
            } else {
                keyLengths[nextKeyLengths] = entry
                nextKeyLengths = (nextKeyLengths + 1) % LengthReasons.keyLengthsCapacity
            }
            return lengths
        }

        func reason(certificate: Int, key: Int) -> String {
            if made.isEmpty { made = [Entry](repeating: Entry(), count: LengthReasons.capacity) }
            let h = UInt(truncatingIfNeeded: certificate) &* 0x9E37_79B9 ^ UInt(truncatingIfNeeded: key) &* 0x85EB_CA6B
            let k = Int((h ^ h >> 15) & UInt(LengthReasons.capacity - 1))
            if made[k].certificate == certificate, made[k].key == key, let known = made[k].text { return known }
            let text = ODAVerifier.lengthReason(certificate: certificate, key: key)
            made[k] = Entry(certificate: certificate, key: key, text: text)
            return text
        }
    }

    fileprivate static func run(_ method: ODAResult.Method, _ e: ODAEvidence, _ cdaAC: ODAEvidence.GenerateAC?,
                            _ registry: Registry, _ reasons: LengthReasons?, _ r: inout ODAResult) throws(Stop) {
        if e.overBudget { throw .missing("the session kept more data than the decoder holds for the check") }
        // What the common outcomes need is read in place; the values are copied out
        // only once the issuer certificate can be recovered.
        // The notes as shared arrays of literals (no array made per session).
        switch (!e.terminal.contains(0x9A), !e.hasPANDigits) {
        case (true, true): r.notes = Notes.noDateNoPAN
        case (true, false): r.notes = Notes.noDate
        case (false, true): r.notes = Notes.noPAN
        case (false, false): break
        }

        // Issuer public key (Book 2 5.3 / 6.3).
        guard let rid = e.rid else { throw .missing("the application's RID is unknown (no SELECT in the capture)") }
        guard let index = e.card.firstByte(0x8F) else { throw .missing("CA public key index (8F) not in the capture") }
        // The keys' count and lengths asked first (most synthetic and altered captures
        // stop at the length), the keys copied out only to be used.
        let certificate90Length = e.card.count(0x90)
        let found = reasons?.caPublicKeyLengths(registry, rid: rid, index: index, matching: certificate90Length ?? -1)
            ?? registry.caPublicKeyLengths(rid: rid, index: index, matching: certificate90Length ?? -1)
        guard found.count > 0 else {
            throw .missing("no CA public key for RID \(hexUpper(rid)) index \(hexUpper([index])) (add it with --plugins)")
        }
        guard let certificateLength = certificate90Length else {
            throw .missing("issuer public key certificate (90) not in the capture")
        }
        guard e.card.contains(0x9F32) else { throw .missing("issuer public key exponent (9F32) not in the capture") }
        guard found.matches else {
            // "issuer certificate length", `lengthReason(certificate:key:)`: kept as the two
            // lengths (the reason was a String made per pair, ~1,400 instructions each).
            throw Stop(outcome: .failed, step: nil, reason: "",
                       usual: .certificateLength(certificate: certificateLength, key: found.firstLength))
        }
        let keys = registry.caPublicKeys(rid: rid, index: index)
        guard let cert90 = e.card[0x90], let issuerExponent = e.card[0x9F32] else { return }
        let transactionDate = e.terminal[0x9A]
        let pan = e.pan
        // Several keys may share RID and index (test and live sets): the one whose
        // recovery has the right header and trailer is the one the issuer used.
        var recovered: [UInt8]?
        for key in keys where key.modulus.count == cert90.count {
            if let x = RSAPublicKeyOperation.apply(cert90, modulus: key.modulus, exponent: key.exponent) {
                if recovered == nil || (x.first == 0x6A && x.last == 0xBC) {
                    recovered = x
                    r.caKey = key
                }
                if x.first == 0x6A && x.last == 0xBC { break }
            }
        }
        guard let x90 = recovered else { throw .failed("issuer certificate recovery", "the certificate is not smaller than the CA key's modulus") }
        let issuer = try certificate(x90, format: 0x02, identifierLength: 4, remainder: e.card[0x92],
                                     exponent: issuerExponent, extra: [], name: "issuer certificate")
        r.issuerCertificate = issuer
        try checkHash(issuer, "issuer certificate")
        if let pan, !pan.hasPrefix(issuer.identifier) || issuer.identifier.count < 3 {
            throw .failed("issuer certificate PAN mismatch", "issuer identifier \(issuer.identifier) does not begin PAN \(maskedPAN(pan))")
        }
        try checkExpiry(issuer, transactionDate, "issuer certificate")
        guard let issuerKey = issuer.publicKey else {
            throw .missing("issuer public key remainder (92) not in the capture")
        }

        let staticData = try staticDataToBeAuthenticated(e)
        if method == .sda {
            guard let ssad = e.card[0x93] else { throw .missing("signed static application data (93) not in the capture") }
            let x = try recover(ssad, issuerKey, issuerExponent, "signed static data")
            var s = try signedData(x, format: 0x03, name: "signed static data")
            s.dataAuthenticationCode = Array(x[3..<5])
            s.computedHash = SHA1.hash(Array(x[1..<(x.count - 21)]) + staticData)
            r.signedData = s
            if s.computedHash != s.hash { throw .failed("signed static data hash", "the hash over the static data does not match") }
            return
        }

        // ICC public key (Book 2 6.4).
        guard let cert9F46 = e.card[0x9F46] else { throw .missing("ICC public key certificate (9F46) not in the capture") }
        guard let iccExponent = e.card[0x9F47] else { throw .missing("ICC public key exponent (9F47) not in the capture") }
        let x46 = try recover(cert9F46, issuerKey, issuerExponent, "ICC certificate")
        let icc = try certificate(x46, format: 0x04, identifierLength: 10, remainder: e.card[0x9F48],
                                  exponent: iccExponent, extra: staticData, name: "ICC certificate")
        r.iccCertificate = icc
        try checkHash(icc, "ICC certificate")
        if let pan, icc.identifier != pan {
            throw .failed("ICC certificate PAN mismatch", "the certificate's PAN \(maskedPAN(icc.identifier)) is not the card's \(maskedPAN(pan))")
        }
        try checkExpiry(icc, transactionDate, "ICC certificate")
        guard let iccKey = icc.publicKey else { throw .missing("ICC public key remainder (9F48) not in the capture") }

        // Signed dynamic application data (Book 2 6.5, 6.6).
        let sdad: [UInt8]
        let terminalData: [UInt8]
        switch method {
        case .dda:
            guard let ia = e.internalAuthenticate else { throw .missing("INTERNAL AUTHENTICATE not in the capture") }
            sdad = e.array(ia.signature)
            terminalData = e.array(ia.ddolData)
        case .fdda:
            guard let s = e.fddaSignature else { throw .missing("signed dynamic data (9F4B) not in the capture") }
            sdad = e.array(s)
            guard let un = e.terminal[0x9F37] else { throw .missing("unpredictable number (9F37) not in the PDOL data") }
            // fDDA version 01 signs UN, amount, currency and 9F69; version 00 the UN alone.
            if let card = e.card[0x9F69], card.first == 0x01 {
                guard let amount = e.terminal[0x9F02], let currency = e.terminal[0x5F2A] else {
                    throw .missing("amount (9F02) or currency (5F2A) not in the PDOL data")
                }
                terminalData = un + amount + currency + card
            } else {
                terminalData = un
            }
        case .cda:
            guard let ac = cdaAC, let s = ac.signedDynamicData else { throw .missing("signed dynamic data not in the capture") }
            sdad = e.array(s)
            guard let un = ac.unpredictableNumber.map({ e.array($0) }) ?? e.terminal[0x9F37] else {
                throw .missing("unpredictable number (9F37) not in the CDOL data")
            }
            terminalData = un
        case .sda:
            return
        }
        let x = try recover(sdad, iccKey, iccExponent, "signed dynamic data")
        var s = try signedData(x, format: 0x05, name: "signed dynamic data")
        let ldd = Int(x[3])
        guard 4 + ldd <= x.count - 21, ldd >= 1 else {
            throw .failed("signed dynamic data format", "dynamic data length \(ldd) does not fit the signature")
        }
        let dynamic = Array(x[4..<(4 + ldd)])
        s.dynamicDataLength = ldd
        let dnLength = Int(dynamic[0])
        if 1 + dnLength <= dynamic.count { s.iccDynamicNumber = Array(dynamic[1..<(1 + dnLength)]) }
        s.computedHash = SHA1.hash(Array(x[1..<(x.count - 21)]) + terminalData)
        if method == .cda, let ac = cdaAC {
            let rest = dynamic.dropFirst(1 + dnLength)
            guard rest.count >= 29 else { throw .failed("signed dynamic data format", "the dynamic data is too short for CDA") }
            let base = rest.startIndex
            s.cid = rest[base]
            s.cryptogram = Array(rest[(base + 1)..<(base + 9)])
            s.transactionDataHash = Array(rest[(base + 9)..<(base + 29)])
            r.signedData = s
            if s.computedHash != s.hash { throw .failed("signed dynamic data hash", "the hash over the dynamic data and the unpredictable number does not match") }
            if let cid = ac.cid, cid != s.cid { throw .failed("cryptogram information data", "9F27 \(hexUpper([cid])) differs from the signed \(hexUpper([s.cid ?? 0]))") }
            // Transaction data hash code: PDOL data, CDOL1 (and CDOL2) data, the answer's objects.
            guard let pdol = e.pdolData else {
                throw .missing("GET PROCESSING OPTIONS data not in the capture")
            }
            var input = e.array(pdol)
            for g in e.generateACs {
                input += e[g.commandData]
                if e[g.commandData] == e[ac.commandData] && g.p1 == ac.p1 { break }
            }
            input += e[ac.responseObjects]
            s.computedTransactionDataHash = SHA1.hash(input)
            r.signedData = s
            if s.computedTransactionDataHash != s.transactionDataHash {
                throw .failed("transaction data hash", "the hash over the PDOL, CDOL data and the answer does not match the signed one")
            }
            return
        }
        r.signedData = s
        if s.computedHash != s.hash { throw .failed("signed dynamic data hash", "the hash over the dynamic data and the terminal's data does not match") }
    }

    // MARK: Steps

    private static func recover(_ data: [UInt8], _ modulus: [UInt8], _ exponent: [UInt8], _ name: String) throws(Stop) -> [UInt8] {
        guard data.count == modulus.count else {
            throw .failed(name + " length", "\(data.count) bytes, the key is \(modulus.count)")
        }
        guard let x = RSAPublicKeyOperation.apply(data, modulus: modulus, exponent: exponent) else {
            throw .failed(name + " recovery", "the data is not smaller than the key's modulus")
        }
        return x
    }

    /// Tables 6 and 14: header, format, identifier, expiry, serial, algorithms, key, hash, trailer.
    private static func certificate(_ x: [UInt8], format: UInt8, identifierLength: Int, remainder: [UInt8]?,
                                    exponent: [UInt8], extra: [UInt8], name: String) throws(Stop) -> RecoveredCertificate {
        let n = x.count
        let fixed = 2 + identifierLength + 2 + 3 + 4   // header .. exponent length
        guard n >= fixed + 21 else { throw .failed(name + " length", "\(n) bytes is too short") }
        guard x[0] == 0x6A, x[n - 1] == 0xBC else {
            throw .failed(name + " header", "recovered data starts \(hexUpper([x[0]])) and ends \(hexUpper([x[n - 1]])) (6A ... BC expected): wrong key or altered certificate")
        }
        var p = 2
        let identifier = Array(x[p..<(p + identifierLength)]); p += identifierLength
        let expiry = Array(x[p..<(p + 2)]); p += 2
        let serial = Array(x[p..<(p + 3)]); p += 3
        let hashAlgorithm = x[p], keyAlgorithm = x[p + 1]
        let keyLength = Int(x[p + 2]), exponentLength = Int(x[p + 3])
        p += 4
        let field = Array(x[p..<(n - 21)])
        var c = RecoveredCertificate(header: x[0], format: x[1], identifier: digits(identifier) ?? hexUpper(identifier),
                                     expiry: expiry, serial: serial, hashAlgorithm: hashAlgorithm, keyAlgorithm: keyAlgorithm,
                                     keyLength: keyLength, exponentLength: exponentLength, publicKey: nil, exponent: exponent,
                                     hash: Array(x[(n - 21)..<(n - 1)]), computedHash: nil, trailer: x[n - 1])
        guard x[1] == format else {
            throw .failed(name + " format", "format \(hexUpper([x[1]])), expected \(hexUpper([format]))")
        }
        guard hashAlgorithm == 0x01 else { throw .failed(name + " hash algorithm", "hash algorithm \(hexUpper([hashAlgorithm])) is not SHA-1 (01)") }
        if keyLength <= field.count {
            c.publicKey = Array(field[0..<keyLength])
        } else if let remainder {
            c.publicKey = field + remainder
        }
        c.computedHash = SHA1.hash(Array(x[1..<(n - 21)]) + (remainder ?? []) + exponent + extra)
        if keyLength > field.count, remainder == nil {
            // The hash covers the remainder: without it neither can be checked.
            c.computedHash = nil
        }
        return c
    }

    private static func checkHash(_ c: RecoveredCertificate, _ name: String) throws(Stop) {
        guard let computed = c.computedHash else {
            throw .missing(name + ": its public key remainder (\(c.format == 0x02 ? "92" : "9F48")) is not in the capture")
        }
        if computed != c.hash { throw .failed(name + " hash", "the SHA-1 of the certificate data does not match the one it carries") }
    }

    private static func checkExpiry(_ c: RecoveredCertificate, _ date: [UInt8]?, _ name: String) throws(Stop) {
        guard let date, date.count == 3, let ty = bcdByte(date[0]), let tm = bcdByte(date[1]),
              c.expiry.count == 2, let cm = bcdByte(c.expiry[0]), let cy = bcdByte(c.expiry[1]) else { return }
        if (cy, cm) < (ty, tm) {
            throw .failed(name + " expired", "valid until \(c.expiryText ?? hexUpper(c.expiry)), transaction date 20\(twoDigits(ty))-\(twoDigits(tm))")
        }
    }

    /// Tables 7 and 17: header, format, hash algorithm, ..., hash, trailer.
    private static func signedData(_ x: [UInt8], format: UInt8, name: String) throws(Stop) -> RecoveredSignedData {
        let n = x.count
        guard n >= 26 else { throw .failed(name + " length", "\(n) bytes is too short") }
        guard x[0] == 0x6A, x[n - 1] == 0xBC else {
            throw .failed(name + " header", "recovered data starts \(hexUpper([x[0]])) and ends \(hexUpper([x[n - 1]])) (6A ... BC expected): wrong key or altered data")
        }
        guard x[1] == format else { throw .failed(name + " format", "format \(hexUpper([x[1]])), expected \(hexUpper([format]))") }
        guard x[2] == 0x01 else { throw .failed(name + " hash algorithm", "hash algorithm \(hexUpper([x[2]])) is not SHA-1 (01)") }
        return RecoveredSignedData(header: x[0], format: x[1], hashAlgorithm: x[2], hash: Array(x[(n - 21)..<(n - 1)]), trailer: x[n - 1])
    }

    /// Book 3 10.3: the records the AFL flags for ODA (template value for SFI 1-10,
    /// the whole record for 11-30), then the values of the tags listed by 9F4A (only AIP).
    private static func staticDataToBeAuthenticated(_ e: ODAEvidence) throws(Stop) -> [UInt8] {
        guard let afl = e.afl else { throw .missing("application file locator (94) not in the capture") }
        guard afl.count % 4 == 0 else { throw .failed("static data", "the AFL is \(afl.count) bytes, not a multiple of 4") }
        var out: [UInt8] = []
        var i = 0
        while i < afl.count {
            let sfi = Int(afl[i] >> 3), first = Int(afl[i + 1]), count = Int(afl[i + 3])
            i += 4
            guard count > 0 else { continue }
            for record in first..<(first + count) {
                guard let data = e.record(sfi: sfi, record: record) else {
                    throw .missing("record \(record) of SFI \(sfi), signed for ODA, was not read in the capture")
                }
                if sfi <= 10 {
                    let value: [UInt8]? = ByteView.with(data) { v in
                        let tlv = BERTLV(parsing: v)
                        guard let first = tlv.nodes.first, first.tag == 0x70, first.error == nil,
                              first.headerLength + first.value.count == data.count else { return nil }
                        return first.value.array
                    }
                    guard let value else { throw .failed("static data", "record \(record) of SFI \(sfi) is not a single 70 template") }
                    out += value
                } else {
                    out += data
                }
            }
        }
        if let list = e.card[0x9F4A] {
            guard list == [0x82] else { throw .failed("static data", "the static data tag list (9F4A) names more than the AIP") }
            guard let aip = e.aip else { throw .missing("AIP (82) not in the capture") }
            out += aip
        }
        return out
    }
}

/// A PAN with all but the first 4 and last 4 digits masked (for reasons and warnings).
func maskedPAN(_ pan: String) -> String {
    guard pan.count > 8 else { return pan }
    return String(pan.prefix(4)) + "..." + String(pan.suffix(4))
}

extension ODAResult {
    /// `ODAVerifier.run` on this verdict where it lies.
    fileprivate mutating func check(_ method: Method, _ e: ODAEvidence, _ cdaAC: ODAEvidence.GenerateAC?,
                                    _ registry: Registry, _ reasons: ODAVerifier.LengthReasons?) throws(ODAVerifier.Stop) {
        try ODAVerifier.run(method, e, cdaAC, registry, reasons, &self)
    }
}
