// Turns an EMV value into human text, choosing how by the TagEntry the
// dictionary picked (renderer name, else format). Resolution never depends on
// the value, so a writer can ask `EMVValueRenderer.resolve` whether there will
// be text before it opens a JSON member; rendering a value that does not fit
// (bad length, invalid BCD) writes a short explanation instead of failing.

public enum EMVValueRenderer: Sendable {
    case numeric, compressedNumeric, text
    case amount, currency, country, date, time, track2, pan, afl, cvmList, cid, dol, tagList
    case issuerApplicationData, cvmResults
    case bits(BitTable)
    case enumeration(CodeTable, bcdKey: Bool)

    /// How `entry` is rendered; nil when there is nothing beyond the hex
    /// (format b, templates, renderer "hex", or a table the dictionary lacks).
    public static func resolve(_ entry: TagEntry, dictionary: any EMVDictionary) -> EMVValueRenderer? {
        if let name = entry.renderer {
            switch name {
            case "amount": return .amount
            case "currency": return .currency
            case "country": return .country
            case "date": return .date
            case "time": return .time
            case "track2": return .track2
            case "pan": return .pan
            case "afl": return .afl
            case "cvm-list": return .cvmList
            case "iad": return .issuerApplicationData
            case "cvm-results": return .cvmResults
            case "cid": return .cid
            case "dol": return .dol
            case "text": return .text
            case "numeric": return .numeric
            case "hex": return nil
            default:
                if name.hasPrefix("bits:") {
                    return dictionary.bitTable(String(name.dropFirst(5))).map { .bits($0) }
                }
                if name.hasPrefix("enum:") {
                    return dictionary.codeTable(String(name.dropFirst(5))).map {
                        .enumeration($0, bcdKey: entry.format == .numeric)
                    }
                }
                // An unknown renderer name (newer plugin file): fall back to the format.
            }
        }
        switch entry.format {
        case .numeric: return .numeric
        case .compressedNumeric: return .compressedNumeric
        case .alphabetic, .alphanumeric, .alphanumericSpecial: return .text
        case .dol: return .dol
        case .tagList: return .tagList
        case .binary, .template: return nil
        }
    }

    /// Generic so the registry's rendering is specialised (no existential calls per value).
    public func render(_ value: ByteView, context: EMVContext, dictionary: some EMVDictionary,
                       to out: OutputBuffer, target: EMVTextTarget = .json) {
        switch self {
        case .numeric: renderNumeric(value, out)
        case .compressedNumeric, .pan: renderCompressedNumeric(value, out)
        case .text: emvCardText(value, out, target)
        case .amount: renderAmount(value, context: context, dictionary: dictionary, out, target)
        case .currency: renderCurrency(value, dictionary: dictionary, out, target)
        case .country: renderCountry(value, dictionary: dictionary, out, target)
        case .date: renderDate(value, out)
        case .time: renderTime(value, out)
        case .track2: renderTrack2(value, out)
        case .afl: renderAFL(value, out)
        case .cvmList: renderCVMList(value, out)
        case .issuerApplicationData: renderIssuerApplicationData(value, context: context, dictionary: dictionary, out, target)
        case .cvmResults: renderCVMResults(value, out)
        case .cid: renderCID(value, out)
        case .dol: renderDOL(value, context: context, dictionary: dictionary, out, target)
        case .tagList: renderTagList(value, context: context, dictionary: dictionary, out, target)
        case .bits(let table): renderBits(value, table: table, out, target)
        case .enumeration(let table, let bcdKey): renderEnum(value, table: table, bcdKey: bcdKey, out, target)
        }
    }
}

/// Writes the human text for `value` as `tag` describes it. Returns false, having
/// written nothing, when there is no text beyond the hex (see `EMVValueRenderer.resolve`).
@discardableResult
public func renderValue(tag: TagEntry, value: ByteView, context: EMVContext, dictionary: any EMVDictionary,
                        to out: OutputBuffer, target: EMVTextTarget = .json) -> Bool {
    guard let r = EMVValueRenderer.resolve(tag, dictionary: dictionary) else { return false }
    r.render(value, context: context, dictionary: dictionary, to: out, target: target)
    return true
}

// MARK: - Formats

/// Format n: every digit, leading zeros included.
func renderNumeric(_ v: ByteView, _ out: OutputBuffer) {
    if v.contains(where: { $0 >> 4 > 9 || $0 & 0x0F > 9 }) {
        out.ascii("invalid BCD "); out.hex(v, uppercase: true)
        return
    }
    out.hex(v)
}

/// Format cn: digits left-justified, trailing F nibbles are padding.
func renderCompressedNumeric(_ v: ByteView, _ out: OutputBuffer) {
    var nibbles = v.count * 2
    while nibbles > 0 {
        let b = v[(nibbles - 1) / 2]
        let n = nibbles % 2 == 0 ? b & 0x0F : b >> 4
        if n != 0x0F { break }
        nibbles -= 1
    }
    for i in 0..<nibbles {
        let b = v[i / 2]
        let n = i % 2 == 0 ? b >> 4 : b & 0x0F
        if n > 9 {
            out.ascii("invalid digits "); out.hex(v, uppercase: true)
            return
        }
    }
    for i in 0..<nibbles {
        let b = v[i / 2]
        emvNibble(i % 2 == 0 ? b >> 4 : b & 0x0F, out)
    }
}

// MARK: - Amounts, currencies, countries

struct CurrencyInfo {
    var alpha: Substring
    var exponent: Int?
}

/// The "currency" code table entry of `code`, parsed ("EUR 2 Euro"). The registry
/// answers from entries parsed once (splitting the text per amount cost ~2 % of a decode).
func currencyInfo(_ code: Int, dictionary: some EMVDictionary) -> CurrencyInfo? {
    if let registry = dictionary as? Registry { return registry.rendererCurrency(code) }
    return parseCurrencyInfo(dictionary.codeTable("currency")?.entries[code])
}

func parseCurrencyInfo(_ text: String?) -> CurrencyInfo? {
    guard let text else { return nil }
    let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
    guard let alpha = parts.first else { return nil }
    var exponent: Int?
    if parts.count > 1, let e = Int(parts[1]), e >= 0, e <= 6 { exponent = e }
    return CurrencyInfo(alpha: alpha, exponent: exponent)
}

/// n12 amount (9F02, 9F03) in the session's currency: "15.00 EUR". Without a
/// known exponent the value is shown as is, in minor units, since guessing 2
/// would be wrong for JPY, KWD and friends.
func renderAmount(_ v: ByteView, context: EMVContext, dictionary: some EMVDictionary,
                  _ out: OutputBuffer, _ target: EMVTextTarget) {
    guard let amount = emvBCDNumber(v) else {
        out.ascii("invalid BCD "); out.hex(v, uppercase: true)
        return
    }
    guard let code = context.currency else {
        out.int(amount); out.ascii(" (minor units)")
        return
    }
    guard let info = currencyInfo(code, dictionary: dictionary), let exponent = info.exponent else {
        out.int(amount); out.ascii(" (minor units, currency "); out.int(code); out.byte(0x29)
        return
    }
    out.fixed(Int64(amount), digits: exponent)
    out.byte(0x20)
    emvDictionaryText(String(info.alpha), out, target)
}

/// n3 currency code: "EUR (978)".
func renderCurrency(_ v: ByteView, dictionary: some EMVDictionary, _ out: OutputBuffer, _ target: EMVTextTarget) {
    guard let code = emvBCDNumber(v) else {
        out.ascii("invalid BCD "); out.hex(v, uppercase: true)
        return
    }
    if let info = currencyInfo(code, dictionary: dictionary) {
        emvDictionaryText(String(info.alpha), out, target)
        out.ascii(" (")
        out.int(code)
        out.byte(0x29)
    } else {
        out.int(code)
    }
}

/// n3 country code: "France (250)".
func renderCountry(_ v: ByteView, dictionary: some EMVDictionary, _ out: OutputBuffer, _ target: EMVTextTarget) {
    guard let code = emvBCDNumber(v) else {
        out.ascii("invalid BCD "); out.hex(v, uppercase: true)
        return
    }
    let shown: String?
    if let registry = dictionary as? Registry {
        shown = registry.rendererCountryName(code)
    } else {
        shown = countryDisplayName(dictionary.codeTable("country")?.entries[code])
    }
    guard let name = shown else {
        out.int(code)
        return
    }
    emvDictionaryText(name, out, target)
    out.ascii(" (")
    out.int(code)
    out.byte(0x29)
}

// MARK: - Dates and times

/// YYMMDD: "2023-12-31". EMV years 00-49 are 20xx and 50-99 are 19xx.
func renderDate(_ v: ByteView, _ out: OutputBuffer) {
    guard v.count == 3 else {
        out.ascii("invalid date length "); out.int(v.count)
        return
    }
    guard let y = emvBCDByte(v[0]), let m = emvBCDByte(v[1]), let d = emvBCDByte(v[2]) else {
        out.ascii("invalid BCD date "); out.hex(v, uppercase: true)
        return
    }
    guard (1...12).contains(m), (1...31).contains(d) else {
        out.ascii("invalid date "); out.hex(v, uppercase: true)
        return
    }
    emvTwoDigits(y < 50 ? 20 : 19, out); emvTwoDigits(y, out)
    out.byte(0x2D); emvTwoDigits(m, out)
    out.byte(0x2D); emvTwoDigits(d, out)
}

/// HHMMSS: "14:05:59".
func renderTime(_ v: ByteView, _ out: OutputBuffer) {
    guard v.count == 3 else {
        out.ascii("invalid time length "); out.int(v.count)
        return
    }
    guard let h = emvBCDByte(v[0]), let m = emvBCDByte(v[1]), let s = emvBCDByte(v[2]) else {
        out.ascii("invalid BCD time "); out.hex(v, uppercase: true)
        return
    }
    guard h < 24, m < 60, s < 60 else {
        out.ascii("invalid time "); out.hex(v, uppercase: true)
        return
    }
    emvTwoDigits(h, out); out.byte(0x3A); emvTwoDigits(m, out); out.byte(0x3A); emvTwoDigits(s, out)
}

/// A "country" code table entry as shown: without a leading alpha-3 code ("FRA France").
func countryDisplayName(_ text: String?) -> String? {
    guard var name = text.map({ Substring($0) }) else { return nil }
    let parts = name.split(separator: " ", maxSplits: 1)
    if parts.count == 2, parts[0].utf8.count == 3, parts[0].utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) {
        name = parts[1]
    }
    return String(name)
}
