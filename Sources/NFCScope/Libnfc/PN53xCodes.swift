// PN53x command codes and the error codes of the status byte, for messages
// (PN532/PN533 user manuals; libnfc pn53x-internal.h).

enum PN53xCommand {
    static let diagnose: UInt8 = 0x00
    static let readRegister: UInt8 = 0x06
    static let writeRegister: UInt8 = 0x08
    static let rfConfiguration: UInt8 = 0x32
    static let inDataExchange: UInt8 = 0x40
    static let inCommunicateThru: UInt8 = 0x42
    static let inDeselect: UInt8 = 0x44
    static let inListPassiveTarget: UInt8 = 0x4A
    static let inRelease: UInt8 = 0x52
    static let tgGetInitiatorCommand: UInt8 = 0x88
    static let tgGetData: UInt8 = 0x86
    static let tgInitAsTarget: UInt8 = 0x8C
    static let tgSetData: UInt8 = 0x8E
    static let tgResponseToInitiator: UInt8 = 0x90
    static let tgSetMetaData: UInt8 = 0x94

    static func name(_ code: UInt8) -> String {
        switch code {
        case 0x00: "Diagnose"
        case 0x02: "GetFirmwareVersion"
        case 0x04: "GetGeneralStatus"
        case 0x06: "ReadRegister"
        case 0x08: "WriteRegister"
        case 0x0C: "ReadGPIO"
        case 0x0E: "WriteGPIO"
        case 0x10: "SetSerialBaudRate"
        case 0x12: "SetParameters"
        case 0x14: "SAMConfiguration"
        case 0x16: "PowerDown"
        case 0x32: "RFConfiguration"
        case 0x58: "RFRegulationTest"
        case 0x40: "InDataExchange"
        case 0x42: "InCommunicateThru"
        case 0x44: "InDeselect"
        case 0x46: "InJumpForPSL"
        case 0x4A: "InListPassiveTarget"
        case 0x4E: "InPSL"
        case 0x50: "InATR"
        case 0x52: "InRelease"
        case 0x54: "InSelect"
        case 0x56: "InJumpForDEP"
        case 0x60: "InAutoPoll"
        case 0x84: "TgGetDEPData"
        case 0x86: "TgGetData"
        case 0x88: "TgGetInitiatorCommand"
        case 0x8A: "TgGetTargetStatus"
        case 0x8C: "TgInitAsTarget"
        case 0x8E: "TgSetData"
        case 0x90: "TgResponseToInitiator"
        case 0x92: "TgSetGeneralBytes"
        case 0x94: "TgSetMetaData"
        default: "command 0x" + hex2(Int(code))
        }
    }
}

/// The status byte of In*/Tg* answers: bits 0-5 error code, bit 6 MI (more
/// information: the data continues in the next frame), bit 7 NAD present.
enum PN53xStatus {
    static let ok: UInt8 = 0x00
    static let timeout: UInt8 = 0x01
    static let released: UInt8 = 0x29
    static let moreInformation: UInt8 = 0x40

    static func error(_ status: UInt8) -> UInt8 { status & 0x3F }

    static func name(_ code: Int) -> String {
        switch code {
        case 0x00: "ok"
        case 0x01: "timeout, the target did not answer"
        case 0x02: "CRC error"
        case 0x03: "parity error"
        case 0x04: "erroneous bit count during anticollision"
        case 0x05: "framing error"
        case 0x06: "abnormal bit collision"
        case 0x07: "communication buffer too small"
        case 0x09: "RF buffer overflow"
        case 0x0A: "RF field not switched on in time"
        case 0x0B: "RF protocol error"
        case 0x0D: "chip overheating"
        case 0x0E: "internal buffer overflow"
        case 0x10: "invalid parameter"
        case 0x12: "unknown DEP command"
        case 0x13: "invalid received frame"
        case 0x14: "MIFARE authentication error"
        case 0x18: "NFC secure not supported"
        case 0x23: "wrong UID check byte (BCC)"
        case 0x25: "invalid DEP state"
        case 0x26: "operation not allowed"
        case 0x27: "command not acceptable in this context"
        case 0x29: "target released by the initiator"
        case 0x2A: "card ID mismatch"
        case 0x2B: "card discarded"
        case 0x2C: "NFCID3 mismatch"
        case 0x2D: "over current"
        case 0x2E: "NAD missing"
        default: "unknown error"
        }
    }
}
