// ST short-range memories (SR176, SRI512, SRIX4K, SRT512...): ISO 14443-2 type B
// signalling and CRC_B framing, but their own anticollision and commands instead of
// REQB/ATTRIB and ISO-DEP. Command codes and answer lengths from ST's SRIX4K datasheet
// (section "SRIX4K commands") and Proxmark3's `include/protocols.h` (ISO14443B_*):
//   06 00 INITIATE, 06 04 PCALL16, x6 SLOT_MARKER(x)  -> chip ID (1 byte)
//   0E id SELECT(chip ID)                              -> chip ID (1 byte)
//   0B GET_UID                                         -> UID (8 bytes, LSB first)
//   08 a READ_BLOCK(a)                                 -> block (4 bytes, LSB first)
//   09 a d0 d1 d2 d3 WRITE_BLOCK(a)                    -> no answer
//   0F COMPLETION, 0C RESET_TO_INVENTORY               -> no answer
// Every frame ends in CRC_B.

public enum STSRCommand: UInt8, Sendable {
    case initiate, pcall16, slotMarker, select, getUID, readBlock, writeBlock, completion, resetToInventory

    public var name: StaticString {
        switch self {
        case .initiate: "INITIATE"
        case .pcall16: "PCALL16"
        case .slotMarker: "SLOT_MARKER"
        case .select: "SELECT"
        case .getUID: "GET_UID"
        case .readBlock: "READ_BLOCK"
        case .writeBlock: "WRITE_BLOCK"
        case .completion: "COMPLETION"
        case .resetToInventory: "RESET_TO_INVENTORY"
        }
    }

    public var jsonName: StaticString {
        switch self {
        case .initiate: "st_initiate"
        case .pcall16: "st_pcall16"
        case .slotMarker: "st_slot_marker"
        case .select: "st_select"
        case .getUID: "st_get_uid"
        case .readBlock: "st_read_block"
        case .writeBlock: "st_write_block"
        case .completion: "st_completion"
        case .resetToInventory: "st_reset_to_inventory"
        }
    }

    /// Bytes of the card's answer before CRC_B, or nil when the command has none.
    public var answerLength: Int? {
        switch self {
        case .initiate, .pcall16, .slotMarker, .select: 1
        case .getUID: 8
        case .readBlock: 4
        case .writeBlock, .completion, .resetToInventory: nil
        }
    }
}

/// An ST SR command or its answer.
public struct STSRInfo: Sendable {
    public var command: STSRCommand
    public var isAnswer: Bool
    /// SLOT_MARKER: the slot number (1-15).
    public var slot: UInt8?
    /// SELECT's parameter, or the chip ID an INITIATE/PCALL16/SLOT_MARKER/SELECT answer gives.
    public var chipID: UInt8?
    /// READ_BLOCK/WRITE_BLOCK address (also on the READ_BLOCK answer, from its command).
    public var address: UInt8?
    /// WRITE_BLOCK data, READ_BLOCK answer data or the GET_UID answer, as sent (LSB first).
    public var data: ByteView

    public init(command: STSRCommand, isAnswer: Bool, slot: UInt8? = nil, chipID: UInt8? = nil,
                address: UInt8? = nil, data: ByteView = ByteView()) {
        self.command = command
        self.isAnswer = isAnswer
        self.slot = slot
        self.chipID = chipID
        self.address = address
        self.data = data
    }
}

public enum STSR {
    /// The command a reader frame (CRC removed) carries, when its code and length fit one.
    public static func command(_ p: ByteView) -> STSRInfo? {
        guard let b0 = p.byte(0) else { return nil }
        switch (b0, p.count) {
        case (0x06, 2):
            switch p.byte(1) {
            case 0x00?: return STSRInfo(command: .initiate, isAnswer: false)
            case 0x04?: return STSRInfo(command: .pcall16, isAnswer: false)
            default: return nil
            }
        case (0x0E, 2): return STSRInfo(command: .select, isAnswer: false, chipID: p.byte(1))
        case (0x0B, 1): return STSRInfo(command: .getUID, isAnswer: false)
        case (0x08, 2): return STSRInfo(command: .readBlock, isAnswer: false, address: p.byte(1))
        case (0x09, 6):
            return STSRInfo(command: .writeBlock, isAnswer: false, address: p.byte(1), data: p.suffix(from: 2))
        case (0x0F, 1): return STSRInfo(command: .completion, isAnswer: false)
        case (0x0C, 1): return STSRInfo(command: .resetToInventory, isAnswer: false)
        case (_, 1) where b0 & 0x0F == 0x06 && b0 >> 4 != 0:
            return STSRInfo(command: .slotMarker, isAnswer: false, slot: b0 >> 4)
        default: return nil
        }
    }

    /// The answer (CRC removed) to `command`, when its length is the one the command gives.
    public static func answer(_ p: ByteView, to command: STSRCommand, address: UInt8?) -> STSRInfo? {
        guard let length = command.answerLength, p.count == length else { return nil }
        var info = STSRInfo(command: command, isAnswer: true)
        switch command {
        case .initiate, .pcall16, .slotMarker, .select: info.chipID = p.byte(0)
        case .readBlock:
            info.address = address
            info.data = p
        case .getUID: info.data = p
        case .writeBlock, .completion, .resetToInventory: return nil
        }
        return info
    }
}

extension STSRInfo {
    public func writeInfo(_ out: OutputBuffer) {
        out.ascii(command.name)
        if let slot, !isAnswer {
            out.byte(0x20)
            out.int(Int(slot))
        }
        if let address {
            out.byte(0x20)
            out.int(Int(address))
        }
        if isAnswer { out.ascii(" answer") }
        if let chipID {
            out.ascii(" chip ID ")
            out.hexByte(chipID, uppercase: true)
        }
        if !data.isEmpty {
            if command == .getUID {
                out.ascii(" UID ")
                writeReversed(data, out)
            } else {
                out.ascii(" data ")
                out.hex(data)
            }
        }
    }

    public func writeJSONMembers(_ out: OutputBuffer) {
        out.ascii(",\"command\":\"")
        out.ascii(command.jsonName)
        out.byte(0x22)
        out.ascii(isAnswer ? ",\"answer\":true" : ",\"answer\":false")
        if let slot {
            out.ascii(",\"slot\":")
            out.int(Int(slot))
        }
        if let chipID {
            out.ascii(",\"chip_id\":\"")
            out.hexByte(chipID, uppercase: true)
            out.byte(0x22)
        }
        if let address {
            out.ascii(",\"address\":")
            out.int(Int(address))
        }
        if command == .getUID, isAnswer {
            out.ascii(",\"uid\":\"")
            writeReversed(data, out)
            out.byte(0x22)
        } else if !data.isEmpty {
            out.ascii(",\"data\":\"")
            out.hex(data)
            out.byte(0x22)
        }
    }
}

/// The UID as ST prints it, most significant byte (D0) first: the air order reversed.
private func writeReversed(_ v: ByteView, _ out: OutputBuffer) {
    var i = v.count - 1
    while i >= 0 {
        if let b = v.byte(i) { out.hexByte(b) }
        i -= 1
    }
}
