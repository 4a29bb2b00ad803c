// What is worked out once per card session from everything it showed: offline
// data authentication and the consistency of the card's data (Luhn check of every
// PAN, PAN in 5A vs track 2 vs the ICC certificate, expiry in 5F24 vs track 2).

enum EMVSessionChecks {
    static func apply(_ e: ODAEvidence, registry: Registry, to s: inout TransactionSummary) {
        s.oda = ODAVerifier.verify(e, registry: registry)
        s.warnings = consistencyWarnings(e, oda: s.oda)
    }

    static func consistencyWarnings(_ e: ODAEvidence, oda: ODAResult?) -> [String] {
        var out: [String] = []
        let pan5A = e.card[0x5A].flatMap(digits)
        let track2 = e.card[0x57], track2Mobile = e.card[0x9F6B]
        let panT2 = track2.flatMap(track2PAN)
        let panT2Mobile = track2Mobile.flatMap(track2PAN)
        var checked: Set<String> = []
        for (pan, source) in [(pan5A, "5A"), (panT2, "track 2 (57)"), (panT2Mobile, "track 2 (9F6B)")] {
            guard let pan, !pan.isEmpty, !checked.contains(pan) else { continue }
            checked.insert(pan)
            if !luhnValid(pan) { out.append("PAN \(maskedPAN(pan)) in \(source) fails the Luhn check") }
        }
        if let a = pan5A, let b = panT2, a != b {
            out.append("PAN in 5A (\(maskedPAN(a))) differs from track 2 (57) (\(maskedPAN(b)))")
        }
        if let a = pan5A ?? panT2, let b = panT2Mobile, a != b {
            out.append("PAN \(maskedPAN(a)) differs from track 2 (9F6B) (\(maskedPAN(b)))")
        }
        if let icc = oda?.iccCertificate, let pan = pan5A ?? panT2, icc.identifier != pan, oda?.step?.contains("PAN") != true {
            out.append("PAN \(maskedPAN(pan)) differs from the ICC certificate's \(maskedPAN(icc.identifier))")
        }
        if let expiry = e.card[0x5F24], expiry.count == 3 {
            let yymm = hexUpper(Array(expiry.prefix(2)))
            for (t2, source) in [(track2, "track 2 (57)"), (track2Mobile, "track 2 (9F6B)")] {
                guard let t2, let e2 = track2Expiry(t2) else { continue }
                if e2 != yymm {
                    out.append("expiry in 5F24 (20\(yymm.prefix(2))-\(yymm.suffix(2))) differs from \(source) (20\(e2.prefix(2))-\(e2.suffix(2)))")
                }
            }
        }
        return out
    }
}

/// The Luhn (mod 10) check digit test of ISO/IEC 7812-1.
func luhnValid(_ digits: String) -> Bool {
    var sum = 0
    var double = false
    var count = 0
    for c in digits.utf8.reversed() {
        guard c >= 0x30, c <= 0x39 else { return false }
        var d = Int(c - 0x30)
        if double { d *= 2; if d > 9 { d -= 9 } }
        sum += d
        double.toggle()
        count += 1
    }
    return count >= 2 && sum % 10 == 0
}
