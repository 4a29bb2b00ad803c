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

    /// Block `k` (0-based, within this answer) of a read answer: the block security status
    /// byte when the request had the option flag, and the block's bytes. The first block's
    /// number is `block`, the size `blockSize`.
    public func readBlock(_ k: Int) -> (status: UInt8?, data: ByteView)? {
        guard !isRequest, let size = blockSize, let count = blockCount, k >= 0, k < count else { return nil }
        let stride = securityStatus ? size + 1 : size
        guard let bytes = data.slice(k * stride + (securityStatus ? 1 : 0), size) else { return nil }
        return (securityStatus ? data.byte(k * stride) : nil, bytes)
    }

    /// The IC manufacturer code of an ISO 15693 UID (E0, code, serial; air order LSB first).
    public var uidManufacturer: UInt8? {
        uid.count == 8 && uid.byte(7) == 0xE0 ? uid.byte(6) : nil
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

    // MARK: Decoding

    /// What a request left for its response to be read against.
    public struct Pending: Sendable, Equatable {
        var command: UInt8
        var option: Bool
        var blockCount: Int
        var block: Int
        var manufacturer: UInt8? = nil
        /// The request's protocol extension flag: a GET SYSTEM INFORMATION answer then gives
        /// the number of blocks on 2 bytes (see `systemInformation`).
        var protocolExtension = false
    }

    /// How a command's parameters are laid out: block number width (0: none) and whether a
    /// block count follows.
    static func blockLayout(_ cmd: UInt8, manufacturer: UInt8?, protocolExtension: Bool) -> (width: Int, count: Bool) {
        let narrow = protocolExtension ? 2 : 1
        switch cmd {
        case readSingleBlock, writeSingleBlock, lockBlock: return (narrow, false)
        case readMultipleBlocks, writeMultipleBlocks, getMultipleBlockSecurityStatus: return (narrow, true)
        case extendedReadSingleBlock, extendedWriteSingleBlock, extendedLockBlock: return (2, false)
        case extendedReadMultipleBlocks, extendedWriteMultipleBlocks, extendedGetMultipleBlockSecurityStatus: return (2, true)
        case 0xC0 where manufacturer == st: return (1, false)
        case 0xC1 where manufacturer == st: return (2, false)
        case 0xC3 where manufacturer == st: return (1, true)
        case 0xC4 where manufacturer == st: return (2, true)
        default: return (0, false)
        }
    }

    /// Commands whose answer is block data (with a security status byte per block under
    /// the option flag): READ SINGLE/MULTIPLE, their extended forms, ST's fast reads.
    static func isRead(_ cmd: UInt8, manufacturer: UInt8?) -> Bool {
        switch cmd {
        case readSingleBlock, readMultipleBlocks, extendedReadSingleBlock, extendedReadMultipleBlocks: true
        case 0xC0, 0xC1, 0xC3, 0xC4: manufacturer == st
        default: false
        }
    }

    static func isWrite(_ cmd: UInt8) -> Bool {
        cmd == writeSingleBlock || cmd == writeMultipleBlocks || cmd == extendedWriteSingleBlock
            || cmd == extendedWriteMultipleBlocks
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
                                  block: info.block ?? 0, manufacturer: info.manufacturer,
                                  protocolExtension: info.protocolExtension)
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
        // EXTENDED GET SYSTEM INFORMATION (3B): flags, 3B, parameter request field (which
        // fields to return), then the UID when addressed. Order as in ISO/IEC 15693-3:2019
        // and as readers build it: STMicroelectronics RFAL `rfalNfcvPollerTransceiveReq` puts
        // the parameter before the UID; NXP's reader library `ExtendedGetSystemInformation`
        // takes the same `bInfoParams` byte. 3B is not WRITE AFI (27) nor GET SYSTEM INFORMATION (2B).
        if cmd == extendedGetSystemInformation {
            guard let requested = p.byte(i) else { return (info, FrameError(.malformed, i)) }
            info.infoFlags = requested
            i += 1
        }
        // STAY QUIET and SELECT are always addressed.
        if info.addressFlag || cmd == stayQuiet || cmd == select {
            guard let uid = p.slice(i, 8) else { return (info, FrameError(.malformed, i)) }
            info.uid = uid
            i += 8
        }
        // Block numbers are one byte (two with the protocol extension flag), two for the
        // extended commands, least significant first; a count is the number of blocks minus one.
        let (blockWidth, hasCount) = blockLayout(cmd, manufacturer: info.manufacturer, protocolExtension: info.protocolExtension)
        func blockNumber(_ at: Int) -> Int? {
            blockWidth == 1 ? p.byte(at).map(Int.init) : p.u16le(at).map(Int.init)
        }
        switch cmd {
        case _ where blockWidth > 0 && !hasCount:
            guard let b = blockNumber(i) else { return (info, FrameError(.malformed, i)) }
            info.block = b
            info.blockCount = 1
            i += blockWidth
        case _ where blockWidth > 0:
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
        let takesData = isWrite(cmd) || isCustom(cmd) || (0x35...0x39).contains(cmd)
        if !takesData, !info.data.isEmpty { return (info, FrameError(.malformed, i)) }
        return (info, nil)
    }

    /// (EXTENDED) GET SYSTEM INFORMATION answer: info flags, UID, then per flag: DSFID, AFI,
    /// memory size (number of blocks minus one, then block size minus one in the low 5 bits),
    /// IC reference. The extended answer (ISO/IEC 15693-3:2019, ST25DV) has the number of
    /// blocks on 2 bytes, LSB first, and may go on with fields (command list, ...) this
    /// decoder leaves in `data`; the basic answer ends there.
    ///
    /// `wideBlockCount`: a basic answer to a request with the protocol extension flag set.
    /// Tags with more than 256 blocks (ST M24LR64-R / M24LR64E-R data sheets, "Request
    /// flags" note 3: GET SYSTEM INFO gives "a standard response format when
    /// Protocol_extension_flag is set to 0, and a rich response when [it] is set to 1")
    /// then give the number of blocks on 2 bytes, LSB first, in a 3-byte memory size field.
    static func systemInformation(_ p: ByteView, into base: NFCVInfo, extended: Bool,
                                  wideBlockCount: Bool = false) -> (NFCVInfo, FrameError?) {
        var info = base
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
            let wide = extended || wideBlockCount
            let width = wide ? 2 : 1
            guard let blocks = wide ? p.u16le(i).map(Int.init) : p.byte(i).map(Int.init),
                  let size = p.byte(i + width) else { return (info, FrameError(.malformed, i)) }
            info.memoryBlocks = blocks + 1
            info.blockSize = Int(size & 0x1F) + 1
            i += width + 1
        }
        if infoFlags & 0x08 != 0 {
            guard let v = p.byte(i) else { return (info, FrameError(.malformed, i)) }
            info.icReference = v
            i += 1
        }
        info.data = p.suffix(from: i)
        return (info, extended || info.data.isEmpty ? nil : FrameError(.malformed, i))
    }

    static func response(_ p: ByteView, flags: UInt8, answering request: Pending?) -> (NFCVInfo, FrameError?) {
        var info = NFCVInfo(isRequest: false, flags: flags, command: request?.command)
        info.manufacturer = request?.manufacturer
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
        case let c where isRead(c, manufacturer: request.manufacturer):
            info.block = request.block
            info.blockCount = request.blockCount
            info.securityStatus = request.option
            info.data = p.suffix(from: 1)
            let perBlock = info.data.count / max(request.blockCount, 1)
            if info.data.isEmpty || info.data.count % max(request.blockCount, 1) != 0 || (request.option && perBlock < 2) {
                return (info, FrameError(.malformed, p.count))
            }
            info.blockSize = request.option ? perBlock - 1 : perBlock
        case inventory:
            guard p.count == 10, let dsfid = p.byte(1), let uid = p.slice(2, 8) else {
                info.data = p.suffix(from: 1)
                return (info, FrameError(.malformed, min(p.count, 10)))
            }
            info.dsfid = dsfid
            info.uid = uid
        case getSystemInformation:
            return systemInformation(p, into: info, extended: false, wideBlockCount: request.protocolExtension)
        case extendedGetSystemInformation:
            return systemInformation(p, into: info, extended: true)
        case getMultipleBlockSecurityStatus, extendedGetMultipleBlockSecurityStatus:
            info.block = request.block
            info.blockCount = request.blockCount
            info.data = p.suffix(from: 1)
        default:
            info.data = p.suffix(from: 1)
        }
        return (info, nil)
    }
}
