// Instructions of UICC and SIM cards and the meaning of their parameters.
// Sources: ETSI TS 102.221 (clause 10.1.1 class byte, table 10.5 commands, clause 11.1
// command parameters, table 9.3 key references), 3GPP TS 51.011 (clause 9.2 commands
// of the GSM SIM, class A0), ETSI TS 102.223 (TERMINAL PROFILE, ENVELOPE, FETCH,
// TERMINAL RESPONSE), 3GPP TS 31.102 clause 7.1 (AUTHENTICATE). Names are the
// specs' own (TS 102.221 "VERIFY PIN" where ISO 7816-4 says "VERIFY").

enum SIMCommands {
    /// Which specification's command set a class byte selects.
    enum Family: UInt8 {
        /// 3GPP TS 51.011 GSM SIM (CLA A0).
        case gsm
        /// ETSI TS 102.221 interindustry classes (0X, 4X, 6X).
        case uiccISO
        /// ETSI TS 102.221 proprietary classes (8X, CX, EX).
        case uiccProprietary

        var jsonName: StaticString {
            switch self {
            case .gsm: "gsm"
            case .uiccISO, .uiccProprietary: "uicc"
            }
        }
    }

    static func family(_ cla: UInt8) -> Family? {
        if cla == 0xA0 { return .gsm }
        switch cla >> 4 {
        case 0x0, 0x4, 0x5, 0x6, 0x7: return .uiccISO
        case 0x8, 0xC, 0xD, 0xE, 0xF: return cla == 0xFF ? nil : .uiccProprietary
        default: return nil
        }
    }

    /// The logical channel of a UICC class byte (TS 102.221 10.1.1): 0...3 in b2 b1 of
    /// 0X/8X, 4...19 in b4...b1 of 4X/6X/CX/EX. A GSM SIM has only channel 0.
    static func channel(_ cla: UInt8) -> Int {
        if cla == 0xA0 { return 0 }
        if cla & 0x40 != 0 { return 4 + Int(cla & 0x0F) }
        return Int(cla & 0x03)
    }

    static func name(cla: UInt8, ins: UInt8) -> StaticString? {
        guard let f = family(cla) else { return nil }
        switch f {
        case .gsm:
            switch ins {
            case 0xA4: return "SELECT"
            case 0xF2: return "STATUS"
            case 0xB0: return "READ BINARY"
            case 0xD6: return "UPDATE BINARY"
            case 0xB2: return "READ RECORD"
            case 0xDC: return "UPDATE RECORD"
            case 0xA2: return "SEEK"
            case 0x32: return "INCREASE"
            case 0x20: return "VERIFY CHV"
            case 0x24: return "CHANGE CHV"
            case 0x26: return "DISABLE CHV"
            case 0x28: return "ENABLE CHV"
            case 0x2C: return "UNBLOCK CHV"
            case 0x04: return "INVALIDATE"
            case 0x44: return "REHABILITATE"
            case 0x88: return "RUN GSM ALGORITHM"
            case 0xFA: return "SLEEP"
            case 0xC0: return "GET RESPONSE"
            case 0x10: return "TERMINAL PROFILE"
            case 0xC2: return "ENVELOPE"
            case 0x12: return "FETCH"
            case 0x14: return "TERMINAL RESPONSE"
            default: return nil
            }
        case .uiccISO:
            switch ins {
            case 0xA4: return "SELECT"
            case 0xB0: return "READ BINARY"
            case 0xD6: return "UPDATE BINARY"
            case 0xB2: return "READ RECORD"
            case 0xDC: return "UPDATE RECORD"
            case 0xA2: return "SEARCH RECORD"
            case 0x20: return "VERIFY PIN"
            case 0x24: return "CHANGE PIN"
            case 0x26: return "DISABLE PIN"
            case 0x28: return "ENABLE PIN"
            case 0x2C: return "UNBLOCK PIN"
            case 0x04: return "DEACTIVATE FILE"
            case 0x44: return "ACTIVATE FILE"
            case 0x88, 0x89: return "AUTHENTICATE"
            case 0x84: return "GET CHALLENGE"
            case 0x70: return "MANAGE CHANNEL"
            case 0x73: return "MANAGE SECURE CHANNEL"
            case 0x75: return "TRANSACT DATA"
            case 0xC0: return "GET RESPONSE"
            default: return nil
            }
        case .uiccProprietary:
            switch ins {
            case 0xF2: return "STATUS"
            case 0x32: return "INCREASE"
            case 0xCB: return "RETRIEVE DATA"
            case 0xDB: return "SET DATA"
            case 0xAA: return "TERMINAL CAPABILITY"
            case 0x10: return "TERMINAL PROFILE"
            case 0xC2: return "ENVELOPE"
            case 0x12: return "FETCH"
            case 0x14: return "TERMINAL RESPONSE"
            case 0x76: return "SUSPEND UICC"
            case 0x78: return "GET IDENTITY"
            case 0x7A: return "EXCHANGE CAPABILITIES"
            default: return nil
            }
        }
    }

    /// SELECT P1 (TS 102.221 11.1.1.2 table 11.2; TS 51.011 9.2.1 has P1 00 only).
    static func selectMode(_ p1: UInt8) -> StaticString? {
        switch p1 {
        case 0x00: "fid"
        case 0x01: "child-df"
        case 0x02: "ef-under-current-df"
        case 0x03: "parent-df"
        case 0x04: "df-name"
        case 0x08: "path-from-mf"
        case 0x09: "path-from-current-df"
        default: nil
        }
    }

    /// SELECT P2 b3 b2 (what the card returns; TS 102.221 table 11.2).
    static func selectReturn(_ p2: UInt8) -> StaticString? {
        switch p2 & 0x0C {
        case 0x04: "fcp"
        case 0x0C: "no-data"
        case 0x00: p2 == 0 ? "gsm-response" : nil
        default: nil
        }
    }

    /// STATUS P1 and P2 (TS 102.221 11.1.2).
    static func statusP1(_ p1: UInt8) -> StaticString? {
        switch p1 {
        case 0x00: "no indication"
        case 0x01: "current application is initialised in the terminal"
        case 0x02: "terminal will initiate the termination of the current application"
        default: nil
        }
    }

    static func statusP2(_ p2: UInt8) -> StaticString? {
        switch p2 {
        case 0x00: "FCP of the current DF"
        case 0x01: "DF name TLV of the current application"
        case 0x0C: "no data"
        default: nil
        }
    }

    /// Key references of PIN commands (TS 102.221 table 9.3).
    static func keyReference(_ p2: UInt8) -> String? {
        switch p2 {
        case 0x01...0x08: "PIN Appl \(p2)"
        case 0x0A...0x0E: "ADM\(p2 - 0x09)"
        case 0x11: "Universal PIN"
        case 0x81...0x88: "Second PIN Appl \(p2 - 0x80)"
        case 0x8A...0x8E: "ADM\(p2 - 0x84)"
        default: nil
        }
    }

    /// AUTHENTICATE P2 b3...b1 (TS 31.102 7.1.2.1, TS 31.103 7.1.2.1).
    static func authenticationContext(_ p2: UInt8) -> StaticString? {
        switch p2 & 0x07 {
        case 0: "GSM"
        case 1: "3G"
        case 2: "VGCS/VBS"
        case 4: "GBA"
        case 5: "MBMS"
        case 6: "local key establishment"
        default: nil
        }
    }

    /// READ/UPDATE RECORD P2 b3...b1 (TS 102.221 11.1.5/11.1.6, TS 51.011 9.2.5).
    static func recordMode(_ p2: UInt8) -> StaticString? {
        switch p2 & 0x07 {
        case 2: "next"
        case 3: "previous"
        case 4: "absolute"
        default: nil
        }
    }

    /// SEARCH RECORD P2 b3...b1 (TS 102.221 11.1.7 table 11.12).
    static func searchMode(_ p2: UInt8) -> StaticString? {
        switch p2 & 0x07 {
        case 4: "forward from P1"
        case 5: "backward from P1"
        case 6: "enhanced"
        default: nil
        }
    }

    /// 3GPP application AIDs (ETSI TS 101.220 annex E: RID A000000087, application
    /// code 1002 USIM, 1004 ISIM): the table name of their ADF in sim-files.plugin.
    static func adfTable(_ aid: ByteView) -> (table: String, name: String)? {
        guard aid.count >= 7, aid.u32be(0) == 0xA000_0000, aid.byte(4) == 0x87 else { return nil }
        switch aid.u16be(5) {
        case 0x1002?: return ("sim-usim", "ADF.USIM")
        case 0x1004?: return ("sim-isim", "ADF.ISIM")
        default: return nil
        }
    }
}
