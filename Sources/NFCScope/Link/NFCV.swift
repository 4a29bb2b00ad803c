// ISO/IEC 15693 (NFC-V) link decoding: request flags, command codes and their
// parameters, and responses read against the request they answer (a response
// alone does not say which command it belongs to, and its layout depends on
// the request's option flag and block count). CRC is ISO 15693's, which is
// the CRC_B computation, low byte first.

/// What an ISO 15693 request or response carries. Views point into the frame.
public struct NFCVInfo: Sendable {
    public var isRequest: Bool
    /// Request or response flags byte.
    public var flags: UInt8
    /// The request's command code; for a response, the command it answers (nil when unknown).
    public var command: UInt8?
    /// IC manufacturer code of a custom or proprietary command (A0...FF).
    public var manufacturer: UInt8?
    /// 8 UID bytes as on the air, least significant first (addressed requests,
    /// INVENTORY and GET SYSTEM INFORMATION answers); empty when absent.
    public var uid: ByteView
    public var afi: UInt8?
    public var dsfid: UInt8?
    /// INVENTORY mask length in bits; the mask value is `data`.
    public var maskLength: UInt8?
    /// First block number and number of blocks of a block command.
    // Stored narrow: this struct sits inside every Frame's LinkInfo.
    private var _block: UInt32?
    public var block: Int? {
        get { _block.map { Int($0) } }
        set { _block = newValue.map { UInt32(truncatingIfNeeded: $0) } }
    }
    // Stored narrow: this struct sits inside every Frame's LinkInfo.
    private var _blockCount: UInt32?
    public var blockCount: Int? {
        get { _blockCount.map { Int($0) } }
        set { _blockCount = newValue.map { UInt32(truncatingIfNeeded: $0) } }
    }
    /// Block data (read answers, write requests), the mask, security statuses, or
    /// the parameters of a command not decoded further.
    public var data: ByteView
    /// Read answers made under the option flag carry a security status byte per block.
    public var securityStatus: Bool
    /// Response error code (error flag set).
    public var errorCode: UInt8?
    /// GET SYSTEM INFORMATION answer.
    public var infoFlags: UInt8?
    // Stored narrow: this struct sits inside every Frame's LinkInfo.
    private var _memoryBlocks: UInt32?
    public var memoryBlocks: Int? {
        get { _memoryBlocks.map { Int($0) } }
        set { _memoryBlocks = newValue.map { UInt32(truncatingIfNeeded: $0) } }
    }
    // Stored narrow: this struct sits inside every Frame's LinkInfo.
    private var _blockSize: UInt32?
    public var blockSize: Int? {
        get { _blockSize.map { Int($0) } }
        set { _blockSize = newValue.map { UInt32(truncatingIfNeeded: $0) } }
    }
    public var icReference: UInt8?

    public init(isRequest: Bool, flags: UInt8, command: UInt8? = nil) {
        self.isRequest = isRequest
        self.flags = flags
        self.command = command
        uid = ByteView()
        data = ByteView()
        securityStatus = false
    }

    // Request flag bits.
    public var dualSubcarrier: Bool { flags & 0x01 != 0 }
    public var highDataRate: Bool { flags & 0x02 != 0 }
    public var inventory: Bool { flags & 0x04 != 0 }
    public var protocolExtension: Bool { flags & 0x08 != 0 }
    /// Bits 5-7 mean select/address/option, or with the inventory flag AFI/slots/option.
    public var selectFlag: Bool { !inventory && flags & 0x10 != 0 }
    public var addressFlag: Bool { !inventory && flags & 0x20 != 0 }
    public var afiFlag: Bool { inventory && flags & 0x10 != 0 }
    public var slots: Int { flags & 0x20 != 0 ? 1 : 16 }
    public var optionFlag: Bool { flags & 0x40 != 0 }
    /// Response error flag.
    public var errorFlag: Bool { flags & 0x01 != 0 }
}

public enum NFCV {
    public static let inventory: UInt8 = 0x01
    public static let stayQuiet: UInt8 = 0x02
    public static let readSingleBlock: UInt8 = 0x20
    public static let writeSingleBlock: UInt8 = 0x21
    public static let lockBlock: UInt8 = 0x22
    public static let readMultipleBlocks: UInt8 = 0x23
    public static let writeMultipleBlocks: UInt8 = 0x24
    public static let select: UInt8 = 0x25
    public static let resetToReady: UInt8 = 0x26
    public static let writeAFI: UInt8 = 0x27
    public static let lockAFI: UInt8 = 0x28
    public static let writeDSFID: UInt8 = 0x29
    public static let lockDSFID: UInt8 = 0x2A
    public static let getSystemInformation: UInt8 = 0x2B
    public static let getMultipleBlockSecurityStatus: UInt8 = 0x2C

    /// Mandatory/optional commands of ISO 15693-3 and the custom range.
    public static func isKnownCommand(_ c: UInt8) -> Bool {
        c == inventory || c == stayQuiet || (0x20...0x2C).contains(c) || (0xA0...0xDF).contains(c)
    }

    public static func isCustom(_ c: UInt8) -> Bool { c >= 0xA0 }

    public static func commandName(_ c: UInt8) -> StaticString {
        switch c {
        case inventory: "INVENTORY"
        case stayQuiet: "STAY QUIET"
        case readSingleBlock: "READ SINGLE BLOCK"
        case writeSingleBlock: "WRITE SINGLE BLOCK"
        case lockBlock: "LOCK BLOCK"
        case readMultipleBlocks: "READ MULTIPLE BLOCKS"
        case writeMultipleBlocks: "WRITE MULTIPLE BLOCKS"
        case select: "SELECT"
        case resetToReady: "RESET TO READY"
        case writeAFI: "WRITE AFI"
        case lockAFI: "LOCK AFI"
        case writeDSFID: "WRITE DSFID"
        case lockDSFID: "LOCK DSFID"
        case getSystemInformation: "GET SYSTEM INFORMATION"
        case getMultipleBlockSecurityStatus: "GET MULTIPLE BLOCK SECURITY STATUS"
        case 0xA0...0xDF: "CUSTOM"
        case 0xE0...0xFF: "PROPRIETARY"
        default: "RFU"
        }
    }

    public static func commandJSONName(_ c: UInt8) -> StaticString {
        switch c {
        case inventory: "inventory"
        case stayQuiet: "stay_quiet"
        case readSingleBlock: "read_single_block"
        case writeSingleBlock: "write_single_block"
        case lockBlock: "lock_block"
        case readMultipleBlocks: "read_multiple_blocks"
        case writeMultipleBlocks: "write_multiple_blocks"
        case select: "select"
        case resetToReady: "reset_to_ready"
        case writeAFI: "write_afi"
        case lockAFI: "lock_afi"
        case writeDSFID: "write_dsfid"
        case lockDSFID: "lock_dsfid"
        case getSystemInformation: "get_system_information"
        case getMultipleBlockSecurityStatus: "get_multiple_block_security_status"
        case 0xA0...0xDF: "custom"
        case 0xE0...0xFF: "proprietary"
        default: "rfu"
        }
    }

    /// ISO 15693-3 response error codes.
    public static func errorName(_ code: UInt8) -> StaticString {
        switch code {
        case 0x01: "command not supported"
        case 0x02: "command not recognised"
        case 0x03: "option not supported"
        case 0x0F: "unknown error"
        case 0x10: "block not available"
        case 0x11: "block already locked"
        case 0x12: "block locked, content cannot change"
        case 0x13: "block not programmed"
        case 0x14: "block not locked"
        case 0xA0...0xDF: "custom command error"
        default: "RFU error code"
        }
    }

    /// IC manufacturer codes (ISO/IEC 7816-6) of common ISO 15693 chips.
    public static func manufacturerName(_ code: UInt8) -> StaticString? {
        switch code {
        case 0x02: "STMicroelectronics"
        case 0x04: "NXP"
        case 0x05: "Infineon"
        case 0x07: "Texas Instruments"
        case 0x16: "EM Microelectronic"
        default: nil
        }
    }

    // MARK: Decoding

    /// What a request left for its response to be read against.
    public struct Pending: Sendable, Equatable {
        var command: UInt8
        var option: Bool
        var blockCount: Int
        var block: Int
    }

    /// Fills crc, info and error of an NFC-V frame. `pending` carries the last
    /// request to its response.
    static func decode(_ frame: inout Frame, pending: inout Pending?) -> FrameError? {
        let bytes = frame.bytes
        var payload = bytes
        frame.crc = .none
        if frame.crcIncluded, bytes.count >= 3 {
            frame.crc = CRC14443.verify(bytes, .nfcB) ? .ok : .bad
            payload = bytes.dropLast(2)
        }
        guard let flags = payload.byte(0) else { return nil }
        switch frame.dir {
        case .reader?:
            let (info, error) = request(payload, flags: flags)
            frame.info = .nfcv(info)
            if let c = info.command {
                pending = Pending(command: c, option: info.optionFlag, blockCount: info.blockCount ?? 1,
                                  block: info.block ?? 0)
            } else {
                pending = nil
            }
            return error
        case .card?:
            let answered = pending
            pending = nil
            let (info, error) = response(payload, flags: flags, answering: answered)
            frame.info = .nfcv(info)
            return error
        case nil:
            return nil
        }
    }

    static func request(_ p: ByteView, flags: UInt8) -> (NFCVInfo, FrameError?) {
        var info = NFCVInfo(isRequest: true, flags: flags)
        guard let cmd = p.byte(1) else { return (info, FrameError(.malformed, 1)) }
        info.command = cmd
        var i = 2
        if isCustom(cmd) {
            guard let mfg = p.byte(i) else { return (info, FrameError(.malformed, i)) }
            info.manufacturer = mfg
            i += 1
        }
        if cmd == inventory {
            if info.afiFlag {
                guard let afi = p.byte(i) else { return (info, FrameError(.malformed, i)) }
                info.afi = afi
                i += 1
            }
            guard let maskLength = p.byte(i) else { return (info, FrameError(.malformed, i)) }
            info.maskLength = maskLength
            let maskBytes = (Int(maskLength) + 7) / 8
            guard maskLength <= 64, let mask = p.slice(i + 1, maskBytes) else {
                return (info, FrameError(.malformed, i))
            }
            info.data = mask
            return (info, p.count == i + 1 + maskBytes ? nil : FrameError(.malformed, i + 1 + maskBytes))
        }
        // STAY QUIET and SELECT are always addressed.
        if info.addressFlag || cmd == stayQuiet || cmd == select {
            guard let uid = p.slice(i, 8) else { return (info, FrameError(.malformed, i)) }
            info.uid = uid
            i += 8
        }
        // Block numbers are one byte, two with the protocol extension flag.
        let blockWidth = info.protocolExtension ? 2 : 1
        func blockNumber(_ at: Int) -> Int? {
            blockWidth == 1 ? p.byte(at).map(Int.init) : p.u16le(at).map(Int.init)
        }
        switch cmd {
        case readSingleBlock, writeSingleBlock, lockBlock:
            guard let b = blockNumber(i) else { return (info, FrameError(.malformed, i)) }
            info.block = b
            info.blockCount = 1
            i += blockWidth
        case readMultipleBlocks, writeMultipleBlocks, getMultipleBlockSecurityStatus:
            guard let b = blockNumber(i), let c = blockNumber(i + blockWidth) else {
                return (info, FrameError(.malformed, i))
            }
            info.block = b
            info.blockCount = c + 1
            i += 2 * blockWidth
        case writeAFI:
            guard let afi = p.byte(i) else { return (info, FrameError(.malformed, i)) }
            info.afi = afi
            i += 1
        case writeDSFID:
            guard let dsfid = p.byte(i) else { return (info, FrameError(.malformed, i)) }
            info.dsfid = dsfid
            i += 1
        default:
            break
        }
        info.data = p.suffix(from: i)
        let takesData = cmd == writeSingleBlock || cmd == writeMultipleBlocks || isCustom(cmd)
        if !takesData, !info.data.isEmpty { return (info, FrameError(.malformed, i)) }
        return (info, nil)
    }

    static func response(_ p: ByteView, flags: UInt8, answering request: Pending?) -> (NFCVInfo, FrameError?) {
        var info = NFCVInfo(isRequest: false, flags: flags, command: request?.command)
        if info.errorFlag {
            guard let code = p.byte(1) else { return (info, FrameError(.malformed, 1)) }
            info.errorCode = code
            return (info, p.count == 2 ? nil : FrameError(.malformed, 2))
        }
        guard let request else {
            info.data = p.suffix(from: 1)
            return (info, nil)
        }
        switch request.command {
        case inventory:
            guard p.count == 10, let dsfid = p.byte(1), let uid = p.slice(2, 8) else {
                info.data = p.suffix(from: 1)
                return (info, FrameError(.malformed, min(p.count, 10)))
            }
            info.dsfid = dsfid
            info.uid = uid
        case getSystemInformation:
            guard let infoFlags = p.byte(1), let uid = p.slice(2, 8) else {
                info.data = p.suffix(from: 1)
                return (info, FrameError(.malformed, p.count))
            }
            info.infoFlags = infoFlags
            info.uid = uid
            var i = 10
            if infoFlags & 0x01 != 0 {
                guard let v = p.byte(i) else { return (info, FrameError(.malformed, i)) }
                info.dsfid = v
                i += 1
            }
            if infoFlags & 0x02 != 0 {
                guard let v = p.byte(i) else { return (info, FrameError(.malformed, i)) }
                info.afi = v
                i += 1
            }
            if infoFlags & 0x04 != 0 {
                // Number of blocks minus one, then block size minus one in the low 5 bits.
                guard let blocks = p.byte(i), let size = p.byte(i + 1) else { return (info, FrameError(.malformed, i)) }
                info.memoryBlocks = Int(blocks) + 1
                info.blockSize = Int(size & 0x1F) + 1
                i += 2
            }
            if infoFlags & 0x08 != 0 {
                guard let v = p.byte(i) else { return (info, FrameError(.malformed, i)) }
                info.icReference = v
                i += 1
            }
            info.data = p.suffix(from: i)
            if !info.data.isEmpty { return (info, FrameError(.malformed, i)) }
        case readSingleBlock, readMultipleBlocks:
            info.block = request.block
            info.blockCount = request.blockCount
            info.securityStatus = request.option
            info.data = p.suffix(from: 1)
            let perBlock = info.data.count / max(request.blockCount, 1)
            if info.data.isEmpty || info.data.count % max(request.blockCount, 1) != 0 || (request.option && perBlock < 2) {
                return (info, FrameError(.malformed, p.count))
            }
            info.blockSize = request.option ? perBlock - 1 : perBlock
        case getMultipleBlockSecurityStatus:
            info.block = request.block
            info.blockCount = request.blockCount
            info.data = p.suffix(from: 1)
        default:
            info.data = p.suffix(from: 1)
        }
        return (info, nil)
    }
}
