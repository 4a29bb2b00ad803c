// Pairs FeliCa commands with their answers and remembers, per IDm, which system the
// reader polled, so the services of a later Read are looked up in that system. A
// card's answer carries no service list: the request's is kept (copied, since the
// capture's pages may be released) until the answer arrives.

/// Whoever takes the FeliCa exchanges the session pairs (the application stages).
public protocol FeliCaReceiver: AnyObject {
    func feliCa(_ exchange: FeliCaExchange)
}

public final class FeliCaSession {
    private let registry: Registry
    /// IDm → the system code the reader polled it with. Bounded: a capture with more
    /// cards than this starts over rather than growing without limit.
    @exclusivity(unchecked) private var systems: [UInt64: UInt16] = [:]
    private static let maxCards = 4096

    private let pendingBytes = GrowableBytes(capacity: 512)
    @exclusivity(unchecked) private var pending: FeliCaFrameInfo?
    @exclusivity(unchecked) private var frames: [Int] = []
    @exclusivity(unchecked) private var badCRC = false

    public init(registry: Registry = .builtin) {
        self.registry = registry
        frames.reserveCapacity(4)
    }

    public func feed<Receiver: FeliCaReceiver>(_ frame: Frame, to sink: Receiver) {
        var frame = frame
        feedInPlace(&frame, to: sink)
    }

    /// `feed`, the frame read where the caller keeps it: `inout` only so that it is not
    /// copied for the call (a `memcpy` of the frame on every FeliCa frame); nothing here
    /// changes it.
    func feedInPlace<Receiver: FeliCaReceiver>(_ frame: inout Frame, to sink: Receiver) {
        if frame.event != nil {
            flush(to: sink)
            return
        }
        // A frame whose length byte or structure is wrong is reported on the frame; it
        // takes no part in an exchange, so nothing is read from bytes that are not there.
        guard frame.tech == .nfcF, frame.error == nil, case .felica(let info) = frame.info,
              info.command != nil else { return }
        if !info.isResponse {
            flush(to: sink)
            pendingBytes.removeAll()
            pendingBytes.append(info.packet)
            var copy = info
            copy.packet = pendingBytes.view
            pending = copy
            frames.append(frame.n)
            badCRC = frame.crc == .bad
            return
        }
        if let command = pending, command.command == info.command {
            frames.append(frame.n)
            badCRC = badCRC || frame.crc == .bad
            emit(command: command, response: info, to: sink)
        } else {
            flush(to: sink)
            frames.append(frame.n)
            badCRC = frame.crc == .bad
            emit(command: nil, response: info, to: sink)
        }
    }

    /// Emits a command still waiting for its answer.
    public func flush<Receiver: FeliCaReceiver>(to sink: Receiver) {
        guard let command = pending else { return }
        emit(command: command, response: nil, to: sink)
    }

    private func emit<Receiver: FeliCaReceiver>(command: FeliCaFrameInfo?, response: FeliCaFrameInfo?, to sink: Receiver) {
        if command?.command == .polling || response?.command == .polling {
            learnSystem(command: command, response: response)
        }
        var system: UInt16?
        if let idm = (command?.idm ?? response?.idm).flatMap(FeliCaIDm.init) { system = systems[idm.key] }
        sink.feliCa(FeliCaExchange(frames: frames[...], command: command, response: response, system: system,
                                   sawBadCRC: badCRC, registry: registry))
        pending = nil
        frames.removeAll(keepingCapacity: true)
        badCRC = false
    }

    /// A Polling answer tells which system the card's IDm belongs to: the one polled
    /// for, or, for the wildcard, the one the card reports when asked (request code 01).
    private func learnSystem(command: FeliCaFrameInfo?, response: FeliCaFrameInfo?) {
        guard let response, let answer = FeliCaPollingResponse(response.packet),
              let idm = FeliCaIDm(answer.idm) else { return }
        let request = command.flatMap { FeliCaPollingRequest($0.packet) }
        var code: UInt16?
        if let request, request.systemCode & 0xFF00 != 0xFF00, request.systemCode & 0x00FF != 0x00FF {
            code = request.systemCode
        } else if request?.requestCode == 1 || request == nil, let rd = answer.requestData {
            code = rd
        }
        guard let code else { return }
        if systems.count >= Self.maxCards { systems.removeAll() }
        systems[idm.key] = code
    }
}
