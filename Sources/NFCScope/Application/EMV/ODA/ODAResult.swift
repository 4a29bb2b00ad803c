// The outcome of offline data authentication as the transaction record shows it:
// which method the capture shows, whether its signatures verify, and every field
// recovered on the way (EMV Book 2, tables 6, 7, 14, 17, 19).

public struct ODAResult: Sendable {
    public enum Method: String, Sendable {
        case sda = "SDA", dda = "DDA", fdda = "fDDA", cda = "CDA"
    }

    public enum Outcome: String, Sendable {
        case verified
        case failed
        case notPossible = "not possible"
    }

    public var method: Method?
    public var result: Outcome
    /// The step that failed (`issuer certificate header`, `ICC certificate hash`, ...).
    public var step: String? {
        get {
            switch usual {
            case .none: stepText
            case .noSignedData: nil
            case .certificateLength: "issuer certificate length"
            }
        }
        set {
            madeTexts()
            stepText = newValue
        }
    }
    public var reason: String? {
        get {
            switch usual {
            case .none: reasonText
            case let .noSignedData(aip): ODAVerifier.noSignedData(aip: aip)
            case let .certificateLength(certificate, key): ODAVerifier.lengthReason(certificate: certificate, key: key)
            }
        }
        set {
            madeTexts()
            reasonText = newValue
        }
    }
    /// `step` and `reason` when set as Strings (`usual` is `.none`).
    var stepText: String?
    var reasonText: String?
    /// The verifier's two usual stops, kept as what their texts are made from: the
    /// writers write them without a String (the length reason was a String made per
    /// pair of lengths, and both texts were escaped for every transaction record).
    var usual = UsualStop.none
    /// The same verdict set as Strings: `step` and `reason` keep their texts when one
    /// of them is set.
    private mutating func madeTexts() {
        guard usual != .none else { return }
        let (s, r) = (step, reason)
        usual = .none
        stepText = s
        reasonText = r
    }
    /// The CA key the issuer certificate was recovered with.
    public var caKey: CAPublicKey?
    public var issuerCertificate: RecoveredCertificate?
    public var iccCertificate: RecoveredCertificate?
    public var signedData: RecoveredSignedData?
    /// Checks that could not be made (no transaction date for the expiry check, ...).
    public var notes: [String] = []

    /// As `ODAResult(method: method, result: outcome, usual: usual)`, written over this
    /// verdict field by field (`ODAVerifier.renew`), the fields at a new verdict's values
    /// left as they are.
    mutating func renew(method: Method?, outcome: Outcome, usual: UsualStop) {
        self.method = method
        result = outcome
        if case .some = stepText { stepText = nil }
        if case .some = reasonText { reasonText = nil }
        self.usual = usual
        if case .some = caKey { caKey = nil }
        if case .some = issuerCertificate { issuerCertificate = nil }
        if case .some = iccCertificate { iccCertificate = nil }
        if case .some = signedData { signedData = nil }
        if !notes.isEmpty { notes = [] }
    }

    /// Stops whose texts `ODAResult` makes when read (`step`, `reason`).
    enum UsualStop: Sendable, Equatable {
        case none
        /// Not possible: no signed data, the AIP's byte 1 naming the methods (`ODAVerifier.noSignedData`).
        case noSignedData(aip: UInt8)
        /// Failed at "issuer certificate length" (`ODAVerifier.lengthReason`).
        case certificateLength(certificate: Int, key: Int)
    }
}

/// An issuer (format 02) or ICC (format 04) public key certificate after recovery.
public struct RecoveredCertificate: Sendable {
    public var header: UInt8
    public var format: UInt8
    /// Issuer identifier (leftmost PAN digits) or application PAN, padding removed.
    public var identifier: String
    /// Certificate expiration date, MMYY as on the card.
    public var expiry: [UInt8]
    public var serial: [UInt8]
    public var hashAlgorithm: UInt8
    public var keyAlgorithm: UInt8
    /// Length of the certified public key's modulus and exponent, in bytes.
    public var keyLength: Int
    public var exponentLength: Int
    /// The certified modulus (with the remainder appended), nil when it cannot be assembled.
    public var publicKey: [UInt8]?
    public var exponent: [UInt8]?
    public var hash: [UInt8]
    public var computedHash: [UInt8]?
    public var trailer: UInt8

    /// "2018-12" from MMYY (nil when not BCD).
    public var expiryText: String? {
        guard expiry.count == 2, let mm = bcdByte(expiry[0]), let yy = bcdByte(expiry[1]), (1...12).contains(mm) else { return nil }
        return "20" + twoDigits(yy) + "-" + twoDigits(mm)
    }
}

/// Signed static (format 03) or dynamic (format 05) application data after recovery.
public struct RecoveredSignedData: Sendable {
    public var header: UInt8
    public var format: UInt8
    public var hashAlgorithm: UInt8
    /// SDA: data authentication code.
    public var dataAuthenticationCode: [UInt8]?
    /// Dynamic data: its length, the ICC dynamic number and (CDA) CID, cryptogram and
    /// transaction data hash code.
    public var dynamicDataLength: Int?
    public var iccDynamicNumber: [UInt8]?
    public var cid: UInt8?
    public var cryptogram: [UInt8]?
    public var transactionDataHash: [UInt8]?
    public var computedTransactionDataHash: [UInt8]?
    public var hash: [UInt8]
    public var computedHash: [UInt8]?
    public var trailer: UInt8
}

func bcdByte(_ b: UInt8) -> Int? {
    guard b >> 4 < 10, b & 0x0F < 10 else { return nil }
    return Int(b >> 4) * 10 + Int(b & 0x0F)
}

func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
