// Names of ISO 15693 (NFC-V) commands, custom commands, error codes and IC manufacturers.
//
// Sources (facts only):
// - ISO/IEC 15693-3:2019 command table (01, 02, 20-2C mandatory/optional; 30-34, 3B, 3C
//   extended commands with 2-byte block numbers; 35 AUTHENTICATE, 36 KEY UPDATE,
//   38 CHALLENGE, 39 READ BUFFER) and error code table (01-03, 0F, 10-15; A0-DF custom).
// - NXP ICODE SLIX2 (SL2S2602), ICODE SLIX-S (SL2S2102) and ICODE SLI-S (SL2S5302)
//   datasheets, custom commands with IC manufacturer code 04.
// - ST ST25DV04K/16K/64K datasheet (DS10925), custom commands with IC manufacturer code 02.
// - ISO/IEC 7816-6 register of IC manufacturers (JTC1/SC17 standing document 5); codes
//   whose holder changed between editions of the register are left unnamed.

extension NFCV {
    // Extended commands (ISO/IEC 15693-3:2019): block numbers on 2 bytes, LSB first.
    public static let extendedReadSingleBlock: UInt8 = 0x30
    public static let extendedWriteSingleBlock: UInt8 = 0x31
    public static let extendedLockBlock: UInt8 = 0x32
    public static let extendedReadMultipleBlocks: UInt8 = 0x33
    public static let extendedWriteMultipleBlocks: UInt8 = 0x34
    public static let extendedGetSystemInformation: UInt8 = 0x3B
    public static let extendedGetMultipleBlockSecurityStatus: UInt8 = 0x3C

    public static let nxp: UInt8 = 0x04
    public static let st: UInt8 = 0x02

    /// Name of a command (text, JSON); custom commands (A0-DF) are named for the manufacturers
    /// below, other custom ones are "CUSTOM".
    static func names(_ c: UInt8, manufacturer: UInt8?) -> (text: StaticString, json: StaticString) {
        switch c {
        case inventory: return ("INVENTORY", "inventory")
        case stayQuiet: return ("STAY QUIET", "stay_quiet")
        case readSingleBlock: return ("READ SINGLE BLOCK", "read_single_block")
        case writeSingleBlock: return ("WRITE SINGLE BLOCK", "write_single_block")
        case lockBlock: return ("LOCK BLOCK", "lock_block")
        case readMultipleBlocks: return ("READ MULTIPLE BLOCKS", "read_multiple_blocks")
        case writeMultipleBlocks: return ("WRITE MULTIPLE BLOCKS", "write_multiple_blocks")
        case select: return ("SELECT", "select")
        case resetToReady: return ("RESET TO READY", "reset_to_ready")
        case writeAFI: return ("WRITE AFI", "write_afi")
        case lockAFI: return ("LOCK AFI", "lock_afi")
        case writeDSFID: return ("WRITE DSFID", "write_dsfid")
        case lockDSFID: return ("LOCK DSFID", "lock_dsfid")
        case getSystemInformation: return ("GET SYSTEM INFORMATION", "get_system_information")
        case getMultipleBlockSecurityStatus: return ("GET MULTIPLE BLOCK SECURITY STATUS", "get_multiple_block_security_status")
        case extendedReadSingleBlock: return ("EXTENDED READ SINGLE BLOCK", "extended_read_single_block")
        case extendedWriteSingleBlock: return ("EXTENDED WRITE SINGLE BLOCK", "extended_write_single_block")
        case extendedLockBlock: return ("EXTENDED LOCK BLOCK", "extended_lock_block")
        case extendedReadMultipleBlocks: return ("EXTENDED READ MULTIPLE BLOCKS", "extended_read_multiple_blocks")
        case extendedWriteMultipleBlocks: return ("EXTENDED WRITE MULTIPLE BLOCKS", "extended_write_multiple_blocks")
        case 0x35: return ("AUTHENTICATE", "authenticate")
        case 0x36: return ("KEY UPDATE", "key_update")
        case 0x38: return ("CHALLENGE", "challenge")
        case 0x39: return ("READ BUFFER", "read_buffer")
        case extendedGetSystemInformation: return ("EXTENDED GET SYSTEM INFORMATION", "extended_get_system_information")
        case extendedGetMultipleBlockSecurityStatus: return ("EXTENDED GET MULTIPLE BLOCK SECURITY STATUS", "extended_get_multiple_block_security_status")
        case 0xA0...0xDF:
            if let m = manufacturer, let name = customName(c, manufacturer: m) { return name }
            return ("CUSTOM", "custom")
        case 0xE0...0xFF: return ("PROPRIETARY", "proprietary")
        default: return ("RFU", "rfu")
        }
    }

    public static func commandName(_ c: UInt8, manufacturer: UInt8? = nil) -> StaticString {
        names(c, manufacturer: manufacturer).text
    }

    public static func commandJSONName(_ c: UInt8, manufacturer: UInt8? = nil) -> StaticString {
        names(c, manufacturer: manufacturer).json
    }

    /// Custom commands of NXP ICODE (04) and ST ST25DV (02) chips.
    static func customName(_ c: UInt8, manufacturer m: UInt8) -> (text: StaticString, json: StaticString)? {
        if m == nxp {
            switch c {
            case 0xA0: return ("INVENTORY READ", "inventory_read")
            case 0xA1: return ("FAST INVENTORY READ", "fast_inventory_read")
            case 0xA2: return ("SET EAS", "set_eas")
            case 0xA3: return ("RESET EAS", "reset_eas")
            case 0xA4: return ("LOCK EAS", "lock_eas")
            case 0xA5: return ("EAS ALARM", "eas_alarm")
            case 0xA6: return ("PASSWORD PROTECT EAS/AFI", "password_protect_eas_afi")
            case 0xA7: return ("WRITE EAS ID", "write_eas_id")
            case 0xAB: return ("GET NXP SYSTEM INFORMATION", "get_nxp_system_information")
            case 0xB0: return ("INVENTORY PAGE READ", "inventory_page_read")
            case 0xB1: return ("FAST INVENTORY PAGE READ", "fast_inventory_page_read")
            case 0xB2: return ("GET RANDOM NUMBER", "get_random_number")
            case 0xB3: return ("SET PASSWORD", "set_password")
            case 0xB4: return ("WRITE PASSWORD", "write_password")
            case 0xB5: return ("LOCK PASSWORD", "lock_password")
            case 0xB6: return ("PROTECT PAGE", "protect_page")
            case 0xB7: return ("LOCK PAGE PROTECTION CONDITION", "lock_page_protection_condition")
            case 0xB8: return ("GET MULTIPLE BLOCK PROTECTION STATUS", "get_multiple_block_protection_status")
            case 0xB9: return ("DESTROY", "destroy")
            case 0xBA: return ("ENABLE PRIVACY", "enable_privacy")
            case 0xBB: return ("64-BIT PASSWORD PROTECTION", "password_protection_64bit")
            case 0xBC: return ("STAY QUIET PERSISTENT", "stay_quiet_persistent")
            case 0xBD: return ("READ SIGNATURE", "read_signature")
            default: return nil
            }
        }
        if m == st {
            switch c {
            case 0xA0: return ("READ CONFIGURATION", "read_configuration")
            case 0xA1: return ("WRITE CONFIGURATION", "write_configuration")
            case 0xA9: return ("MANAGE GPO", "manage_gpo")
            case 0xAA: return ("WRITE MESSAGE", "write_message")
            case 0xAB: return ("READ MESSAGE LENGTH", "read_message_length")
            case 0xAC: return ("READ MESSAGE", "read_message")
            case 0xAD: return ("READ DYNAMIC CONFIGURATION", "read_dynamic_configuration")
            case 0xAE: return ("WRITE DYNAMIC CONFIGURATION", "write_dynamic_configuration")
            case 0xB1: return ("WRITE PASSWORD", "write_password")
            case 0xB3: return ("PRESENT PASSWORD", "present_password")
            case 0xC0: return ("FAST READ SINGLE BLOCK", "fast_read_single_block")
            case 0xC1: return ("FAST EXTENDED READ SINGLE BLOCK", "fast_extended_read_single_block")
            case 0xC3: return ("FAST READ MULTIPLE BLOCKS", "fast_read_multiple_blocks")
            case 0xC4: return ("FAST EXTENDED READ MULTIPLE BLOCKS", "fast_extended_read_multiple_blocks")
            case 0xCA: return ("FAST WRITE MESSAGE", "fast_write_message")
            case 0xCB: return ("FAST READ MESSAGE LENGTH", "fast_read_message_length")
            case 0xCC: return ("FAST READ MESSAGE", "fast_read_message")
            case 0xCD: return ("FAST READ DYNAMIC CONFIGURATION", "fast_read_dynamic_configuration")
            case 0xCE: return ("FAST WRITE DYNAMIC CONFIGURATION", "fast_write_dynamic_configuration")
            default: return nil
            }
        }
        return nil
    }

    /// ISO/IEC 15693-3 response error codes.
    public static func errorName(_ code: UInt8) -> StaticString {
        switch code {
        case 0x01: "command not supported"
        case 0x02: "command not recognised (format error)"
        case 0x03: "option not supported"
        case 0x0F: "error with no information given"
        case 0x10: "block not available (does not exist)"
        case 0x11: "block already locked"
        case 0x12: "block locked, content cannot change"
        case 0x13: "block not successfully programmed"
        case 0x14: "block not successfully locked"
        case 0x15: "block read-protected"
        case 0xA0...0xDF: "custom command error"
        default: "RFU error code"
        }
    }

    /// IC manufacturer codes (ISO/IEC 7816-6 register), the byte after E0 in a UID.
    public static func manufacturerName(_ code: UInt8) -> StaticString? {
        switch code {
        case 0x01: "Motorola"
        case 0x02: "STMicroelectronics"
        case 0x03: "Hitachi"
        case 0x04: "NXP"
        case 0x05: "Infineon"
        case 0x06: "Cylink"
        case 0x07: "Texas Instruments"
        case 0x08: "Fujitsu"
        case 0x09: "Matsushita Electronics"
        case 0x0A: "NEC"
        case 0x0B: "Oki Electric"
        case 0x0C: "Toshiba"
        case 0x0D: "Mitsubishi Electric"
        case 0x0E: "Samsung Electronics"
        case 0x0F: "Hynix"
        case 0x10: "LG Semiconductors"
        case 0x11: "Emosyn-EM Microelectronics"
        case 0x12: "INSIDE Technology"
        case 0x13: "ORGA Kartensysteme"
        case 0x14: "Sharp"
        case 0x15: "Atmel"
        case 0x16: "EM Microelectronic-Marin"
        case 0x18: "ZMD"
        case 0x19: "Xicor"
        case 0x1A: "Sony"
        case 0x1B: "Malaysia Microelectronic Solutions"
        case 0x1C: "Emosyn"
        case 0x1D: "Shanghai Fudan Microelectronics"
        case 0x1E: "Magellan Technology"
        case 0x1F: "Melexis"
        case 0x20: "Renesas Technology"
        case 0x21: "TAGSYS"
        case 0x22: "Transcore"
        case 0x23: "Shanghai Belling"
        case 0x24: "Masktech"
        case 0x25: "Innovision Research and Technology"
        case 0x26: "Hitachi ULSI Systems"
        default: nil
        }
    }
}
