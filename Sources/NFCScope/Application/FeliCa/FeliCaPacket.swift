// The fields of the FeliCa packets that carry structure (Polling, the
// service/block lists of Read and Write Without Encryption, their answers), as
// views over the packet. A packet starts at the command code; offsets in the
// errors are packet offsets, which the frame decoder turns into frame offsets.

/// One element of a block list: 2 bytes (`1AAASSSS`, block number) or 3 bytes
/// (`0AAASSSS`, block number little-endian).
public struct FeliCaBlockListElement: Sendable, Equatable {
    public var accessMode: UInt8
    public var serviceIndex: Int
    public var block: Int
    /// 2 or 3.
    public var length: Int
}

/// A block list: `count` elements of 2 or 3 bytes each.
public struct FeliCaBlockList: Sendable {
    public var count: Int
    /// The elements' bytes, exactly.
    public var bytes: ByteView

    /// Walks the elements; nil when the bytes end inside the `index`-th.
    public func forEach(_ body: (Int, FeliCaBlockListElement) -> Void) {
        var at = 0
        for i in 0..<count {
            guard let e = FeliCaBlockList.element(bytes, at) else { return }
            body(i, e)
            at += e.length
        }
    }

    static func element(_ bytes: ByteView, _ at: Int) -> FeliCaBlockListElement? {
        guard let b0 = bytes.byte(at), let b1 = bytes.byte(at + 1) else { return nil }
        let mode = (b0 >> 4) & 0x07
        if b0 & 0x80 != 0 {
            return FeliCaBlockListElement(accessMode: mode, serviceIndex: Int(b0 & 0x0F), block: Int(b1), length: 2)
        }
        guard let b2 = bytes.byte(at + 2) else { return nil }
        return FeliCaBlockListElement(accessMode: mode, serviceIndex: Int(b0 & 0x0F),
                                      block: Int(b1) | Int(b2) << 8, length: 3)
    }

    /// Measures the list starting at `start` of `packet`: its byte length, or the
    /// packet offset where it is cut off, or the first element pointing past `services`.
    static func measure(_ packet: ByteView, start: Int, count: Int, services: Int) -> Result<Int, FrameError> {
        var at = start
        for i in 0..<count {
            guard let e = element(packet, at) else {
                return .failure(FrameError(.felicaTruncated, min(packet.count, at)))
            }
            if e.serviceIndex >= services { return .failure(FrameError(.felicaServiceIndex, i, services)) }
            at += e.length
        }
        return .success(at - start)
    }
}

/// Polling: system code (big-endian), request code, time slot number.
public struct FeliCaPollingRequest: Sendable {
    public var systemCode: UInt16
    public var requestCode: UInt8
    public var timeSlots: UInt8

    public init?(_ packet: ByteView) {
        guard let sc = packet.u16be(1), let rc = packet.byte(3), let tsn = packet.byte(4) else { return nil }
        systemCode = sc
        requestCode = rc
        timeSlots = tsn
    }

    /// Slots the cards may answer in: TSN + 1 (0, 1, 3, 7, 15 are the defined values).
    public var slotCount: Int { Int(timeSlots) + 1 }
}

/// Polling answer: IDm, PMm and, when requested, 2 bytes of request data (system
/// code for request code 01, communication performance for 02).
public struct FeliCaPollingResponse: Sendable {
    public var idm: ByteView
    public var pmm: ByteView
    public var requestData: UInt16?

    public init?(_ packet: ByteView) {
        guard let idm = packet.slice(1, 8), let pmm = packet.slice(9, 8) else { return nil }
        self.idm = idm
        self.pmm = pmm
        requestData = packet.count >= 19 ? packet.u16be(17) : nil
    }
}

/// Read/Write Without Encryption request: IDm, service list (little-endian codes),
/// block list, and for a write the 16-byte blocks to write.
public struct FeliCaBlockRequest: Sendable {
    public var idm: ByteView
    public var serviceCount: Int
    public var serviceCodes: ByteView
    public var blocks: FeliCaBlockList
    /// Write only: the data (16 bytes per block; may be short in a damaged frame).
    public var data: ByteView

    public func serviceCode(_ i: Int) -> UInt16? {
        i < serviceCount ? serviceCodes.u16le(2 * i) : nil
    }

    public static func parse(_ packet: ByteView, write: Bool) -> Result<FeliCaBlockRequest, FrameError> {
        guard let idm = packet.slice(1, 8) else { return .failure(FrameError(.felicaTruncated, packet.count)) }
        guard let n = packet.byte(9) else { return .failure(FrameError(.felicaTruncated, 9)) }
        let serviceCount = Int(n)
        guard let codes = packet.slice(10, 2 * serviceCount) else {
            return .failure(FrameError(.felicaTruncated, packet.count))
        }
        let mAt = 10 + 2 * serviceCount
        guard let m = packet.byte(mAt) else { return .failure(FrameError(.felicaTruncated, mAt)) }
        let listLength: Int
        switch FeliCaBlockList.measure(packet, start: mAt + 1, count: Int(m), services: serviceCount) {
        case .success(let l): listLength = l
        case .failure(let e): return .failure(e)
        }
        let list = FeliCaBlockList(count: Int(m), bytes: packet.slice(mAt + 1, listLength) ?? ByteView())
        let dataAt = mAt + 1 + listLength
        let data = write ? packet.suffix(from: dataAt) : ByteView()
        if write, data.count < 16 * Int(m) {
            return .failure(FrameError(.felicaTruncated, packet.count))
        }
        return .success(FeliCaBlockRequest(idm: idm, serviceCount: serviceCount, serviceCodes: codes,
                                           blocks: list, data: data))
    }
}

extension FeliCaBlockRequest {
    /// `parse(packet, write: false)` for a packet it is known to take
    /// (`FeliCaFrameInfo.readRequestParses`): the same fields, the list's length from its
    /// elements' first bytes alone (no service index or bounds walk to repeat). Nil when
    /// the packet is not of that shape after all (the caller then parses it).
    static func parsedRead(_ packet: ByteView) -> FeliCaBlockRequest? {
        guard let idm = packet.slice(1, 8), let n = packet.byte(9), let codes = packet.slice(10, 2 &* Int(n)),
              let m = packet.byte(10 &+ 2 &* Int(n)) else { return nil }
        let start = 11 &+ 2 &* Int(n)
        var at = start
        for _ in 0..<Int(m) {
            guard let b0 = packet.byte(at) else { return nil }
            at &+= b0 & 0x80 != 0 ? 2 : 3
        }
        guard let list = packet.slice(start, at &- start) else { return nil }
        return FeliCaBlockRequest(idm: idm, serviceCount: Int(n), serviceCodes: codes,
                                  blocks: FeliCaBlockList(count: Int(m), bytes: list), data: ByteView())
    }
}

/// Read/Write Without Encryption answer: IDm, status flags, and for a successful read
/// the block count and the blocks (16 bytes each).
public struct FeliCaBlockResponse: Sendable {
    public var idm: ByteView
    public var status1: UInt8
    public var status2: UInt8
    public var blockCount: Int
    public var data: ByteView

    public func block(_ i: Int) -> ByteView? { i < blockCount ? data.slice(16 * i, 16) : nil }

    public static func parse(_ packet: ByteView, read: Bool) -> Result<FeliCaBlockResponse, FrameError> {
        guard let idm = packet.slice(1, 8) else { return .failure(FrameError(.felicaTruncated, packet.count)) }
        guard let sf1 = packet.byte(9), let sf2 = packet.byte(10) else {
            return .failure(FrameError(.felicaTruncated, packet.count))
        }
        var response = FeliCaBlockResponse(idm: idm, status1: sf1, status2: sf2, blockCount: 0, data: ByteView())
        guard read, sf1 == 0 else { return .success(response) }
        guard let m = packet.byte(11) else { return .failure(FrameError(.felicaTruncated, 11)) }
        guard let data = packet.slice(12, 16 * Int(m)) else {
            return .failure(FrameError(.felicaTruncated, packet.count))
        }
        response.blockCount = Int(m)
        response.data = data
        return .success(response)
    }
}

/// Checks a packet's structure where the command has one the decoder reads, so a
/// malformed frame carries an error naming where it went wrong.
enum FeliCaPacketCheck {
    static func check(_ packet: ByteView, _ command: FeliCaCommand, response: Bool) -> FrameError? {
        let needsIDm = command.carriesIDm(response: response)
        if needsIDm, packet.count < 9 { return FrameError(.felicaTruncated, packet.count) }
        switch (command, response) {
        case (.polling, false):
            return packet.count < 5 ? FrameError(.felicaTruncated, packet.count) : nil
        case (.polling, true):
            return packet.count < 17 ? FrameError(.felicaTruncated, packet.count) : nil
        case (.readWithoutEncryption, false), (.writeWithoutEncryption, false):
            if case .failure(let e) = FeliCaBlockRequest.parse(packet, write: command == .writeWithoutEncryption) {
                return e
            }
        case (.readWithoutEncryption, true), (.writeWithoutEncryption, true):
            if case .failure(let e) = FeliCaBlockResponse.parse(packet, read: command == .readWithoutEncryption) {
                return e
            }
        case (.requestService, false), (.requestService, true):
            guard let n = packet.byte(9) else { return FrameError(.felicaTruncated, 9) }
            if packet.count < 10 + 2 * Int(n) { return FrameError(.felicaTruncated, packet.count) }
        case (.requestSystemCode, true):
            guard let n = packet.byte(9) else { return FrameError(.felicaTruncated, 9) }
            if packet.count < 10 + 2 * Int(n) { return FrameError(.felicaTruncated, packet.count) }
        default:
            break
        }
        return nil
    }
}
