// ISO 14443-4 transport as seen by a sniffer: pairs reader and card I-blocks into
// command/response exchanges, joining chained blocks and ignoring retransmissions.
//
// A sniffer sees both sides but may miss frames or see them corrupted, so the rules
// are written from the observer's side:
// - a block with a bad CRC carries nothing (the receiver discards it too and asks
//   for it again), but its frame still belongs to the exchange;
// - within one chain the block number alternates, so a block with the same number
//   as the last one taken from that side is a retransmission when it repeats that
//   block's bytes (or one of the two copies is damaged); a reader block with the same
//   number and other bytes is a new command, and the one before it got no answer;
// - a reader I-block arriving while a response is still awaited means the response
//   was lost (or the capture missed it): the pending exchange is closed without one;
// - field off, a new activation or DESELECT closes whatever is pending.

/// One command/response pair carried by ISO-DEP blocks. Views (the frame numbers,
/// command and response) stay valid only during the sink call that receives the
/// exchange: a sink that keeps them copies them.
public struct ISODEPExchange {
    /// Numbers of all frames that carried the exchange (I-, R- and S-blocks), in order.
    /// A view of the reassembler's list (`Array(frames)` keeps a copy).
    public var frames: FrameNumbers
    /// The reassembled command (nil when the capture has no command for this response).
    public var command: ByteView?
    /// The reassembled response (nil when no response was seen).
    public var response: ByteView?
    /// Number of S(WTX) requests from the card during the exchange.
    public var waitingTimeExtensions: Int
    /// Number of blocks that were sent again (after a NAK or a corrupted block).
    public var retransmissions: Int
    /// True when a block of the exchange was seen with a bad CRC. Its bytes are used
    /// only when no good copy of the block followed (the other side evidently got it).
    public var sawBadCRC: Bool
    /// True when the exchange ended without its response block chain completing.
    public var incomplete: Bool
    /// True when a chain of the exchange ran past `ISODEPReassembler.maxMessageBytes`
    /// or its frames past `ISODEPReassembler.maxExchangeFrames`: its bytes were let go
    /// (command and response are nil, nothing is decoded from a part of a message),
    /// and an endless chain is reported in several such records, each with its frames.
    public var overlong: Bool = false
}

/// Collects a byte string that usually fits in one block (then it is a view into
/// the capture, no copy) and is copied only when a second chained block arrives.
/// The last block may be tentative: taken from a frame with a bad CRC because the
/// other side acted on it, and replaced if a good copy of the same block follows.
///
/// `copying` false (the reassembler's receiver only counts exchanges, `stats`): the
/// chained blocks' bytes are not copied, only their length is kept (`held`), which is
/// all the count reads of them (the cap, `heldBytes`; `hasBytes`). One assembly is fed
/// in one mode (the reassembler's receiver type decides it).
final class ChainAssembly {
    @exclusivity(unchecked) private var single: ByteView?
    /// Set once the chain ran past the cap: blocks are still counted, bytes dropped.
    @exclusivity(unchecked) private(set) var discarding = false
    private let buffer = GrowableBytes()
    @exclusivity(unchecked) private var chained = false
    @exclusivity(unchecked) private(set) var blocks = 0
    @exclusivity(unchecked) private var lastStart = 0
    @exclusivity(unchecked) private(set) var lastBlockNumber: UInt8 = 0xFF
    @exclusivity(unchecked) private(set) var lastTentative = false
    /// The INF of the last block taken, to tell a repeated block from a new one
    /// that happens to carry the same block number.
    @exclusivity(unchecked) private(set) var lastINF = ByteView()
    /// Bytes of the chain while `chained`: `buffer.count` when copying, else the length
    /// the buffer would have. Set where the chain becomes chained (`append`, `detach`),
    /// read only while it is: not reset with the rest (two stores an exchange), and
    /// declared last so that the other fields' resets stay paired stores.
    @exclusivity(unchecked) private var held = 0

    var isEmpty: Bool { blocks == 0 }

    // The methods below run once or twice per block and are inlined into the
    // reassembler's per-block functions (the calls showed in profiles of `stats`).
    @inline(__always)
    func reset() {
        single = nil
        discarding = false
        chained = false
        blocks = 0
        lastStart = 0
        lastBlockNumber = 0xFF
        lastTentative = false
        lastINF = ByteView()
        buffer.removeAll()
    }

    /// Bytes held (0 for a single block, which is a view into the capture).
    var heldBytes: Int { chained ? held : 0 }

    /// Lets the bytes go for the rest of the chain (see `ISODEPExchange.overlong`).
    func discard() {
        discarding = true
        single = nil
        chained = false
        buffer.removeAll()
    }

    @inline(__always)
    func append(_ inf: ByteView, blockNumber: UInt8, tentative: Bool, copying: Bool = true) {
        if discarding {
        } else if blocks == 0 {
            single = inf
        } else {
            if !chained, let first = single {
                if copying {
                    buffer.removeAll()
                    buffer.append(first)
                }
                held = first.count
                chained = true
            }
            lastStart = held
            if copying { buffer.append(inf) }
            held = lastStart &+ inf.count
        }
        // A count of frames (far below 2^63): no overflow check (about 3 instructions a
        // block with the register it kept).
        blocks &+= 1
        lastBlockNumber = blockNumber
        lastTentative = tentative
        lastINF = inf
    }

    /// Whether a block with this number and INF may be the last block sent again: the
    /// same number, and the same bytes unless one of the two copies is damaged (then
    /// the bytes cannot be compared).
    @inline(__always)
    func mayRepeatLast(blockNumber: UInt8, inf: ByteView, good: Bool) -> Bool {
        guard blocks > 0, blockNumber == lastBlockNumber else { return false }
        return !good || lastTentative || inf.elementsEqual(lastINF)
    }

    /// Puts a good copy in place of a tentative last block.
    func replaceLast(_ inf: ByteView, copying: Bool = true) {
        if discarding {
        } else if chained {
            if copying {
                buffer.truncate(to: lastStart)
                buffer.append(inf)
            }
            held = lastStart &+ inf.count
        } else {
            single = inf
        }
        lastTentative = false
    }

    /// Copies a single block still held as a view of the input into the own buffer,
    /// before the input's buffer moves (streams).
    func detach() {
        guard blocks > 0, !chained, let first = single else { return }
        buffer.removeAll()
        buffer.append(first)
        chained = true
        lastStart = 0
        held = first.count
        single = nil
    }

    var bytes: ByteView? {
        @inline(__always) get {
        guard blocks > 0, !discarding else { return nil }
        return chained ? buffer.view : single
        }
    }

    /// `bytes != nil`, without making the view (what a counting receiver reads).
    var hasBytes: Bool {
        @inline(__always) get { blocks > 0 && !discarding && (chained || single != nil) }
    }
}

/// Whoever takes the exchanges the reassembler completes.
public protocol ExchangeReceiver: AnyObject {
    func exchange(_ exchange: ISODEPExchange)
    /// True for a receiver that reads of an exchange only that it happened and whether
    /// it had a response (`stats`): the reassembler then calls `countExchange` where it
    /// would have built the exchange and called `exchange(_:)` (except for the record of
    /// an exchange with too many frames, still built). Known per type, so the choice
    /// costs nothing at run time. Default false (every exchange is built).
    static var countsExchangesOnly: Bool { get }
    /// An exchange completed; `withResponse` is `response != nil` of the exchange that
    /// `exchange(_:)` would have been handed. Called only when `countsExchangesOnly`.
    /// (Named apart from `DecodeSink.exchangeCounted` so that one class can be both.)
    func countExchange(withResponse: Bool)
}

extension ExchangeReceiver {
    public static var countsExchangesOnly: Bool { false }
    public func countExchange(withResponse: Bool) {}
}

public final class ISODEPReassembler {
    /// Longest command or response reassembled: four times the longest extended APDU
    /// (65,544 bytes, ISO 7816-4), so no real exchange comes near it. A chain that
    /// runs past it is an overlong exchange (see `ISODEPExchange.overlong`).
    public static let maxMessageBytes = 1 << 18
    /// Most frames one exchange record lists (a 65,544-byte response in the smallest
    /// blocks, acknowledged, with WTX pairs, stays far below it).
    public static let maxExchangeFrames = 1 << 16

    private enum Phase {
        case idle
        /// Reader is sending a command (possibly chained); `complete` once the last block came.
        case command(complete: Bool)
        /// Card is sending the response chain.
        case response
    }

    @exclusivity(unchecked) private var phase: Phase = .idle
    private let command = ChainAssembly()
    private let response = ChainAssembly()
    /// Numbers of the exchange's frames. Exchanges get a view of it (no reference
    /// count per exchange, no uniqueness check per block as an array had).
    private let frames = FrameNumberList(capacity: 64)
    @exclusivity(unchecked) private var wtx = 0
    @exclusivity(unchecked) private var retransmissions = 0
    @exclusivity(unchecked) private var badCRC = false
    /// The response's last block had no chaining bit (even if its CRC was bad).
    @exclusivity(unchecked) private var responseEnded = false
    /// The exchange in progress ran past a cap.
    @exclusivity(unchecked) private var overlong = false
    /// Overlong exchanges seen so far, for the caller to report (see `takeOverlongReport`).
    @exclusivity(unchecked) private var overlongReports: [(first: Int, last: Int)] = []
    /// True when `takeOverlongReport` has something.
    @exclusivity(unchecked) public private(set) var hasOverlongReport = false

    public init() {}

    /// The input's bytes are about to move (a stream's buffer is compacted): a pending
    /// exchange keeps its own copy of what it still holds of them.
    public func detachFromInput() {
        command.detach()
        response.detach()
    }

    /// Feeds one frame; hands `receiver` the exchange the frame completes, if any.
    /// Inlined into the per-frame loop so that the frame is read where it lies
    /// rather than copied into the call; only the block goes on.
    @inline(__always)
    public func feed<R: ExchangeReceiver>(_ frame: Frame, to receiver: R) {
        if frame.event != nil {
            flush(to: receiver)
            return
        }
        if frame.info.endsISODEPSession {
            flush(to: receiver)
            return
        }
        var frame = frame
        feedBlock(of: &frame, to: receiver)
    }

    /// `feed` for a frame the caller has already found to end no session (no field
    /// event, `endsISODEPSession` false), so the per-frame loop tests that once.
    /// `inout` only so that the frame is read where the loop keeps it (nothing here
    /// changes it): a frame taken by value was copied whole for the call.
    @inline(__always)
    func feedBlock<R: ExchangeReceiver>(of frame: inout Frame, to receiver: R) {
        guard case .block(let block) = frame.info, let dir = frame.dir else { return }
        // Only a verified block is trusted. When the capture kept CRC bytes but this
        // frame has none it was cut short on the air, which is no better than a bad CRC.
        let good = frame.crc == .ok || (frame.crc == .none && !frame.crcIncluded)
        feed(block, dir: dir, n: frame.n, good: good, to: receiver)
    }

    // Inlined into `feedBlock`, so into the per-frame loop: passing the block on to a
    // call cost more than the switch.
    @inline(__always)
    private func feed<R: ExchangeReceiver>(_ block: ISODEPBlock, dir: Direction, n: Int, good: Bool, to receiver: R) {
        switch (block.kind, dir) {
        case (.i, .reader):
            readerIBlock(block, n: n, good: good, to: receiver)
        case (.i, .card):
            cardIBlock(block, n: n, good: good, to: receiver)
        case (.r, _):
            if case .idle = phase { return }
            note(n, counting: R.countsExchangesOnly)
            if !good { badCRC = true }
        case (.s, .card):
            if case .idle = phase {
                // The card asks for more time for a command this capture missed:
                // a response is on its way, so the frames belong to that exchange.
                guard block.sType == .wtx else { return }
                startExchange()
                phase = .command(complete: true)
            }
            note(n, counting: R.countsExchangesOnly)
            if block.sType == .wtx { wtx += 1 }
            if !good { badCRC = true }
        case (.s, .reader):
            if case .idle = phase { return }
            note(n, counting: R.countsExchangesOnly)
            if !good { badCRC = true }
        }
        if frames.count >= Self.maxExchangeFrames {
            if case .idle = phase {} else { tooManyFrames(to: receiver) }
        }
    }

    @inline(__always)
    private func readerIBlock<R: ExchangeReceiver>(_ block: ISODEPBlock, n: Int, good: Bool, to receiver: R) {
        if !good, case .response = phase {
            // A damaged reader block cannot be told from noise; it does not prove the
            // response is over, so it stays with the exchange in progress.
            note(n, counting: R.countsExchangesOnly)
            badCRC = true
            return
        }
        switch phase {
        case .idle:
            break
        case .command(let complete):
            if command.mayRepeatLast(blockNumber: block.blockNumber, inf: block.inf, good: good) {
                // The same block again: the reader is repeating it (after a NAK or a
                // lost answer). A different block with the same number is a new
                // command: the one before it got no answer.
                note(n, counting: R.countsExchangesOnly)
                retransmissions += 1
                if good && command.lastTentative { command.replaceLast(block.inf, copying: !R.countsExchangesOnly) }
                if !good { badCRC = true }
                return
            }
            // A finished command followed by another one: the first got no answer.
            // An unfinished one continues its chain, unless the block restarts the
            // numbering with other bytes (the reader gave the chain up).
            if complete || (!command.isEmpty && block.blockNumber == command.lastBlockNumber) {
                flush(to: receiver)
            }
        case .response:
            // A new command while a response chain was unfinished.
            flush(to: receiver)
        }
        if case .idle = phase {
            startExchange()
        }
        note(n, counting: R.countsExchangesOnly)
        if !good { badCRC = true }
        command.append(block.inf, blockNumber: block.blockNumber, tentative: !good, copying: !R.countsExchangesOnly)
        phase = .command(complete: !block.chaining)
        if command.heldBytes > Self.maxMessageBytes { becomeOverlong(R.self) }
    }

    @inline(__always)
    private func cardIBlock<R: ExchangeReceiver>(_ block: ISODEPBlock, n: Int, good: Bool, to receiver: R) {
        switch phase {
        case .idle:
            // A response whose command the capture does not have.
            startExchange()
        case .command:
            break
        case .response:
            if !response.isEmpty && block.blockNumber == response.lastBlockNumber {
                note(n, counting: R.countsExchangesOnly)
                retransmissions += 1
                if good && response.lastTentative { response.replaceLast(block.inf, copying: !R.countsExchangesOnly) }
                if !good { badCRC = true }
                if good && !block.chaining { emit(to: receiver, incomplete: false) }
                return
            }
        }
        phase = .response
        note(n, counting: R.countsExchangesOnly)
        if !good { badCRC = true }
        response.append(block.inf, blockNumber: block.blockNumber, tentative: !good, copying: !R.countsExchangesOnly)
        responseEnded = !block.chaining
        if response.heldBytes > Self.maxMessageBytes { becomeOverlong(R.self) }
        // A corrupted last block may still be repeated after the reader's NAK, so
        // only a good one closes the exchange; otherwise the next command or the
        // end of the capture does.
        if good && !block.chaining {
            emit(to: receiver, incomplete: false)
        }
    }

    /// Frame `n` is one of the exchange's. A receiver that only counts exchanges never
    /// sees their frame numbers: for it the list keeps its count and its first and last
    /// numbers only (`FrameNumberList.tally`), which is all the caps and the overlong
    /// report read.
    @inline(__always)
    private func note(_ n: Int, counting: Bool) {
        if counting { frames.tally(n) } else { frames.append(n) }
    }

    /// Drops the bytes of the exchange in progress: it will be reported overlong.
    private func becomeOverlong<R: ExchangeReceiver>(_: R.Type) {
        command.discard()
        response.discard()
        guard !overlong else { return }
        overlong = true
        let counting = R.countsExchangesOnly
        overlongReports.append((frames.first(counting: counting) ?? 0, frames.last(counting: counting) ?? 0))
        hasOverlongReport = true
    }

    /// An exchange with more frames than one record lists: the frames so far go out
    /// as an overlong record and the exchange goes on (its bytes are not kept). A
    /// counting receiver counts it as `exchange(_:)` would have: an exchange without
    /// a response.
    private func tooManyFrames<R: ExchangeReceiver>(to receiver: R) {
        becomeOverlong(R.self)
        if R.countsExchangesOnly {
            receiver.countExchange(withResponse: false)
        } else {
            receiver.exchange(ISODEPExchange(frames: frames.view, command: nil, response: nil,
                                             waitingTimeExtensions: wtx, retransmissions: retransmissions,
                                             sawBadCRC: badCRC, incomplete: true, overlong: true))
        }
        frames.removeAll()
    }

    /// For each exchange that became overlong since the last call: its first frame and
    /// the frame at which it ran past a cap.
    public func takeOverlongReports() -> [(first: Int, last: Int)] {
        let r = overlongReports
        overlongReports.removeAll()
        hasOverlongReport = false
        return r
    }

    @inline(__always)
    private func startExchange() {
        overlong = false
        command.reset()
        response.reset()
        frames.removeAll()
        wtx = 0
        retransmissions = 0
        badCRC = false
        responseEnded = false
    }

    /// Hands the exchange in progress on: built by `emitCurrent`, or only counted by
    /// `countCurrent` for a receiver that counts exchanges (`stats`: no exchange built).
    @inline(__always)
    private func emit<R: ExchangeReceiver>(to receiver: R, incomplete: Bool) {
        if R.countsExchangesOnly {
            countCurrent(to: receiver)
        } else {
            emitCurrent(to: receiver, incomplete: incomplete)
        }
    }

    /// A call of its own, as `emitCurrent` is: inlined, the count made the optimizer
    /// leave `cardIBlock` a call of its own instead (+2.4 M on `stats` of bench-10).
    @inline(never)
    private func countCurrent<R: ExchangeReceiver>(to receiver: R) {
        receiver.countExchange(withResponse: response.hasBytes)
        phase = .idle
    }

    private func emitCurrent<R: ExchangeReceiver>(to receiver: R, incomplete: Bool) {
        receiver.exchange(ISODEPExchange(frames: frames.view, command: command.bytes, response: response.bytes,
                            waitingTimeExtensions: wtx, retransmissions: retransmissions,
                            sawBadCRC: badCRC, incomplete: incomplete || overlong, overlong: overlong))
        // No reset here: nothing reads the exchange state while idle, and every way
        // out of idle starts with `startExchange()` (resetting twice per exchange
        // showed in profiles of `stats`).
        phase = .idle
    }

    /// Closes whatever is pending (end of input, field off, new activation).
    public func flush<R: ExchangeReceiver>(to receiver: R) {
        switch phase {
        case .idle:
            return
        case .command:
            if command.isEmpty && response.isEmpty {
                phase = .idle
                startExchange()
                return
            }
            emit(to: receiver, incomplete: true)
        case .response:
            emit(to: receiver, incomplete: !responseEnded)
        }
    }
}
