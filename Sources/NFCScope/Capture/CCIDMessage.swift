// USB CCID bulk messages (USB Device Class: Smart Card, CCID 1.1, sections 6.1 and 6.2).
// Every message starts with the same 10-byte header:
//   bMessageType, dwLength (little-endian: bytes of abData after the header), bSlot, bSeq,
//   then 3 bytes whose meaning depends on the message type.
// Bulk-OUT (PC_to_RDR_*) messages say what the host asks; bulk-IN (RDR_to_PC_*) messages
// answer with the same bSlot and bSeq and carry bStatus (byte 7), bError (byte 8) and one
// more byte (byte 9: bChainParameter, bClockStatus, bProtocolNum or RFU).

/// One CCID message as it was on the bus: its header fields and a view of abData.
public struct CCIDMessage: Sendable {
    public var type: UInt8
    /// dwLength as the header states it.
    public var length: UInt32
    public var slot: UInt8
    public var seq: UInt8
    /// Bytes 7, 8 and 9 (for RDR_to_PC messages: bStatus, bError, the type's own byte).
    public var b7: UInt8
    public var b8: UInt8
    public var b9: UInt8
    /// abData: what follows the header (at most `declaredLength` bytes).
    public var data: ByteView
    /// For an RDR_to_PC message: the type of the PC_to_RDR message with the same slot and
    /// sequence number that it answers (0 when that message was not seen).
    public var answers: UInt8 = 0
    /// The whole USB packet that carried the message (usbmon header included), for export.
    public var packet: ByteView = ByteView()
    /// The usbmon link type of `packet`: 220 or 189.
    public var packetLinkType: UInt16 = 0

    /// Parses the header at the start of `v`; nil when fewer than 10 bytes are present
    /// or the message type is none of CCID's.
    public static func parse(_ v: ByteView) -> CCIDMessage? {
        guard v.count >= 10, let type = v.byte(0), name(type) != nil, let length = v.u32le(1),
              let slot = v.byte(5), let seq = v.byte(6), let b7 = v.byte(7), let b8 = v.byte(8),
              let b9 = v.byte(9) else { return nil }
        let declared = Int(length)
        let data = v.suffix(from: 10).prefix(min(declared, v.count - 10))
        return CCIDMessage(type: type, length: length, slot: slot, seq: seq, b7: b7, b8: b8, b9: b9,
                           data: data)
    }

    public var declaredLength: Int { Int(length) }

    /// Whether the message comes from the reader (bulk-IN, RDR_to_PC_*).
    public var fromReader: Bool { type >= 0x80 }

    /// abData is shorter than dwLength says.
    public var truncated: Bool { data.count < declaredLength }

    /// The message types of CCID 1.1, tables 6.1-1 (bulk-OUT) and 6.2-1 (bulk-IN).
    public static func name(_ type: UInt8) -> StaticString? {
        switch type {
        case 0x62: "IccPowerOn"
        case 0x63: "IccPowerOff"
        case 0x65: "GetSlotStatus"
        case 0x6F: "XfrBlock"
        case 0x6C: "GetParameters"
        case 0x6D: "ResetParameters"
        case 0x61: "SetParameters"
        case 0x6B: "Escape"
        case 0x6E: "IccClock"
        case 0x6A: "T0APDU"
        case 0x69: "Secure"
        case 0x71: "Mechanical"
        case 0x72: "Abort"
        case 0x73: "SetDataRateAndClockFrequency"
        case 0x80: "DataBlock"
        case 0x81: "SlotStatus"
        case 0x82: "Parameters"
        case 0x83: "Escape"
        case 0x84: "DataRateAndClockFrequency"
        default: nil
        }
    }

    // MARK: RDR_to_PC status (section 6.2.6)

    /// bmICCStatus, bits 0-1 of bStatus.
    public var iccStatus: UInt8 { b7 & 0x03 }
    /// bmCommandStatus, bits 6-7 of bStatus.
    public var commandStatus: UInt8 { b7 >> 6 }

    public static func iccStatusName(_ v: UInt8) -> StaticString {
        switch v {
        case 0: "present and active"
        case 1: "present and inactive"
        case 2: "no ICC present"
        default: "RFU"
        }
    }

    public static func commandStatusName(_ v: UInt8) -> StaticString {
        switch v {
        case 0: "processed without error"
        case 1: "failed"
        case 2: "time extension requested"
        default: "RFU"
        }
    }

    /// bError when the command failed (table 6.2-2). Codes C0 down to 81 are user-defined,
    /// 80 down to 01 name the position of the message byte that was not supported or wrong.
    public static func errorName(_ e: UInt8) -> StaticString {
        switch e {
        case 0xFF: "CMD_ABORTED"
        case 0xFE: "ICC_MUTE"
        case 0xFD: "XFR_PARITY_ERROR"
        case 0xFC: "XFR_OVERRUN"
        case 0xFB: "HW_ERROR"
        case 0xF8: "BAD_ATR_TS"
        case 0xF7: "BAD_ATR_TCK"
        case 0xF6: "ICC_PROTOCOL_NOT_SUPPORTED"
        case 0xF5: "ICC_CLASS_NOT_SUPPORTED"
        case 0xF4: "PROCEDURE_BYTE_CONFLICT"
        case 0xF3: "DEACTIVATED_PROTOCOL"
        case 0xF2: "BUSY_WITH_AUTO_SEQUENCE"
        case 0xF0: "PIN_TIMEOUT"
        case 0xEF: "PIN_CANCELLED"
        case 0xE0: "CMD_SLOT_BUSY"
        case 0x81...0xC0: "user-defined error"
        case 0x01...0x80: "bad or unsupported parameter at this message offset"
        case 0x00: "command not supported"
        default: "unknown (RFU)"
        }
    }

    /// RDR_to_PC_SlotStatus bClockStatus (section 6.2.2).
    public static func clockStatusName(_ v: UInt8) -> StaticString {
        switch v {
        case 0: "clock running"
        case 1: "clock stopped in state L"
        case 2: "clock stopped in state H"
        case 3: "clock stopped in an unknown state"
        default: "unknown (RFU)"
        }
    }

    /// RDR_to_PC_DataBlock bChainParameter (section 6.2.1).
    public static func chainName(_ v: UInt8) -> StaticString {
        switch v {
        case 0x00: "whole"
        case 0x01: "begins, continues"
        case 0x02: "continues, ends"
        case 0x03: "continues"
        case 0x10: "empty, continues"
        default: "unknown (RFU)"
        }
    }

    /// PC_to_RDR_IccPowerOn bPowerSelect (section 6.1.1).
    public static func powerSelectName(_ v: UInt8) -> StaticString {
        switch v {
        case 0: "automatic"
        case 1: "5.0 V"
        case 2: "3.0 V"
        case 3: "1.8 V"
        default: "unknown (RFU)"
        }
    }
}
