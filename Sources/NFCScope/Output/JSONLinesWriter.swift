// JSON Lines for programs. The schema is documented in docs/jsonl-schema.md and
// versioned by `JSONLinesWriter.schema`; keys are written in a fixed order and
// never twice. Everything is written by hand into one reused buffer.

public final class JSONLinesWriter: MaskableFrameWriter {
    /// Bumped on any incompatible change to the records below.
    public static let schema: StaticString = "nfcscope.jsonl/1"

    private let out: OutputBuffer
    public var output: OutputBuffer { out }
    @exclusivity(unchecked) public var nextFrameMask: [Bool]?
    private let context: RenderContext
    /// The last unchained card I-block frame's bytes and where their hex is: an APDU's
    /// response data, written next, copies its hex from there.
    private let recentHex = RecentHex()
    @exclusivity(unchecked) private var digits = 6
    /// The tail of a common I- or R-block's frame line (`ISODEPBlock.iBlockTail`,
    /// `rBlockTail`) without bits, flags or error, from the CRC verdict to `"inf_len":`:
    /// entry `crc * 32 + tail`, written by the general writers once.
    private let blockTails = JSONLinesWriter.makeBlockTails()
    /// The parts of the last two ATS prefixes' frame lines (`ATSPrefixMemo`), and the
    /// line tails of the last two ATQA and RATS values.
    private let atsParts = KeptParts()

    /// `redact`: records mask what they know to be secret themselves (see `RenderContext`).
    public init(output: OutputBuffer, registry: Registry = .builtin, redact: Bool = false) {
        self.out = output
        var context = RenderContext(registry: registry, redact: redact)
        context.valueCache = RenderedValueCache(registry: registry)
        context.recentHex = recentHex
        context.commandTable = ShortCommandTable()
        self.context = context
    }

    public var depth: DecodeDepth { .application }

    public func begin(_ input: InputDescription) {
        digits = input.timestampDigits
        out.ascii("{\"type\":\"input\",\"schema\":\"")
        out.ascii(Self.schema)
        out.ascii("\",\"file\":\"")
        out.jsonEscaped(input.path)
        out.ascii("\",\"format\":\"")
        out.ascii(input.format)
        out.ascii("\"}\n")
        out.recordDone()
    }

    public func frame(_ frame: Frame) {
        var frame = frame
        frameInPlace(&frame)
    }

    /// The frame record, the frame read where the caller keeps it (nothing here changes
    /// it; see `DecodeSink.frameInPlace`).
    public func frameInPlace(_ frame: inout Frame) {
        let out = self.out
        // The opening, number and time in one reservation; the time in nanoseconds when the
        // input has them, else in microseconds. One inlined opening for each: with the
        // digits a constant, the time's scale and checks are too (a selected scale and
        // digit count were worked out and tested on every frame).
        if digits >= 9 {
            out.frameOpeningInline(frame.n, time: frame.time, digits: 9)
        } else {
            out.frameOpeningMicroseconds(frame.n, nanoseconds: frame.time)
        }
        // The members up to the info text in two reservations (names are at most 9
        // bytes: 64 bytes hold dir, tech, event and the literals; 128 the rest).
        // Whether there is a mask, without a copy of it (a copy retained and released
        // the optional array on every frame).
        let masked = nextFrameMask != nil
        // A cursor rather than `withReserved`'s closure: the closure was left a call of
        // its own, a call per frame with the cursor passed through memory. The room without
        // overflow checks (four instructions a frame): a view counts bytes in memory, far
        // below 2^61, and a count that wrapped would make the hex's claim trap anyway.
        // The room also holds a common block's tail (`blockTailRoom`), or any other
        // frame's CRC member to `,"info":"` (at most 128 bytes), written through the same
        // cursor below.
        var c = out.reservedCursor(64 &+ Self.blockTailRoom &+ (masked ? 0 : frame.bytes.count &<< 1))
        if frame.event == nil, let dir = frame.dir {
            // Most frames: one literal for the direction and technology.
            c.asciiOf33To48(dirTechHexOpening(dir, frame.tech))
        } else {
            c.ascii(",\"dir\":")
            if let dir = frame.dir {
                c.byte(0x22); c.ascii(dir.jsonName); c.byte(0x22)
            } else {
                c.ascii("null")
            }
            c.ascii(",\"tech\":\"")
            c.ascii(frame.tech.jsonName)
            if let event = frame.event {
                c.ascii("\",\"event\":\"")
                c.ascii(event.jsonName)
            }
            c.ascii("\",\"hex\":\"")
        }
        if !masked { c.hex(frame.bytes) }
        // Which of the line's three ways the info takes, from one read of its tag, after
        // the hex (a value computed before it was kept across its call): two tests of
        // the tag, one composed from three loads, took about 19 instructions.
        let way = frame.info.frameLineWay
        if way == .block {
            // A common I- or R-block (most frames of a card capture): its tail, INF length
            // and the line's end through the same cursor, one commit. This narrow path,
            // inline, replaces the call of `writeBlockMembers` (its prologue, a second
            // reservation and its own commit); every other block still goes there.
            if !masked, let tail = Self.commonBlockTail(&frame) {
                let k = tail.k, infCount = tail.inf
                let hexEnd = c.offset
                c.padded(blockTails, Int(frame.crc.rawValue) &* 32 &+ k)
                c.intLineEnd(infCount)
                out.commit(c)
                // As `writeBlockMembers`: only the card's unchained I-blocks' hex is
                // remembered (entries 0-15 are I-blocks, odd ones chaining).
                if k & 0x11 == 0, frame.dir == .card, infCount >= RecentHex.worthwhile {
                    recentHex.remember(frame.bytes, writtenAt: out.flushedCount &+ hexEnd &- (frame.bytes.count &<< 1), in: out)
                }
                out.recordDone()
                return
            }
            out.commit(c)
            if masked, let mask = nextFrameMask { out.hex(frame.bytes, mask: mask, maskOffset: 0) }
            // A plain I-block's line is closed there (`}` and the newline).
            if writeBlockMembers(&frame, masked: masked) {
                out.recordDone()
                return
            }
        } else {
            // Any other frame but a block: the CRC member's literal to `,"info":"` through
            // the same cursor (a reservation of its own cost about 10 instructions a
            // frame) when nearly every such frame has no bits or flags and its hex is
            // written. The rest take `writeCRCBitsFlags` in a reservation of their own
            // after the commit: the cursor is passed to no call (passed `inout` to that
            // writer, which the optimizer leaves a call, it was kept in memory, and every
            // frame paid for storing its fields).
            if !masked && frame.bits == 0 && frame.flags.isEmpty {
                c.asciiOf17To32(crcInfoOpening(frame.crc))
                out.commit(c)
            } else {
                out.commit(c)
                if masked, let mask = nextFrameMask { out.hex(frame.bytes, mask: mask, maskOffset: 0) }
                out.withReserved(128) { c in writeCRCBitsFlags(frame.crc, frame.bits, frame.flags, &c) }
            }
            if way == .activation {
                // Events and activation frames: info and members in one switch.
                LinkInfo.writeInfoQuoteAndJSONMembers(of: &frame.info, out, atsParts: atsParts)
            } else {
                LinkInfo.writeOtherInfoQuoteAndJSONMembers(of: &frame.info, out)
            }
        }
        if let error = frame.error {
            out.ascii(",\"error\":\"")
            out.jsonEscaped(error.message)
            if frame.line > 0 {
                out.ascii("\",\"line\":")
                out.int(frame.line)
            } else {
                out.ascii("\",\"offset\":")
                out.int(frame.offset)
            }
        }
        out.ascii("}\n")
        out.recordDone()
    }

    /// An ISO-DEP block frame's members after its hex. A common I- or R-block without
    /// bits, flags or error (most blocks) takes its tail from `blockTails`, then its INF
    /// length and the line's end, and true is returned (the line is closed); every other
    /// block goes to `writeBlockMembersInGeneral`. The frame's hex was just written
    /// (unless masked): an unchained card I-block's is remembered for the APDU's response hex (here
    /// after the members: `writtenAt` is a position, which stays valid). `inout` only
    /// to read the frame in place.
    @inline(never)
    private func writeBlockMembers(_ frame: inout Frame, masked: Bool) -> Bool {
        guard case .block(let block) = frame.info else { return false }
        guard frame.bits == 0, frame.flags.isEmpty, frame.error == nil, let k = block.iBlockTail ?? block.rBlockTail else {
            writeBlockMembersInGeneral(&frame, masked: masked)
            return false
        }
        let hexEnd = out.position
        out.withReserved(PaddedLiterals.copied + 32) { c in
            c.padded(blockTails, Int(frame.crc.rawValue) &* 32 &+ k)
            c.intLineEnd(block.inf.count)
        }
        // Entries 0-15 are I-blocks, odd ones chaining. Only the card's unchained ones:
        // an APDU's response is the card's, and a chained one is put together in the
        // reassembler's buffer, not read in a frame (remembering either only put the
        // last single-block response's bytes out of reach).
        if k & 0x11 == 0, !masked, frame.dir == .card, block.inf.count >= RecentHex.worthwhile {
            recentHex.remember(frame.bytes, writtenAt: hexEnd &- (frame.bytes.count &<< 1), in: out)
        }
        return true
    }

    /// Room `frameInPlace` reserves after the hex for a common block's tail: a padded
    /// literal (`PaddedLiterals.copied`) and `intLineEnd`'s 22 bytes.
    private static var blockTailRoom: Int { PaddedLiterals.copied &+ 32 }

    /// A common block's `blockTails` entry (without the CRC's part) and its INF length:
    /// an I- or R-block (`iBlockTail`, `rBlockTail`) without bits, flags or error; nil
    /// for every other frame. `inout` only to read the frame in place.
    @inline(__always)
    private static func commonBlockTail(_ frame: inout Frame) -> (k: Int, inf: Int)? {
        // A block whose fields are its PCB's (every parsed one) has the PCB's entry.
        guard case .block(let block) = frame.info, frame.bits == 0, frame.flags.isEmpty, frame.error == nil,
              !block.departsFromPCB else { return nil }
        let k = ISODEPBlock.lineTail(ofPCB: block.pcb)
        guard k != ISODEPBlock.noLineTail else { return nil }
        return (Int(k), block.inf.count)
    }

    /// `writeBlockMembers` for every other block, out of line (the fast path above reads
    /// only the fields it needs).
    @inline(never)
    private func writeBlockMembersInGeneral(_ frame: inout Frame, masked: Bool) {
        guard case .block(let block) = frame.info else { return }
        if !masked, block.kind == .i, !block.chaining, frame.dir == .card, block.inf.count >= RecentHex.worthwhile {
            recentHex.remember(frame.bytes, writtenAt: out.position - 2 * frame.bytes.count, in: out)
        }
        out.withReserved(128 + ISODEPBlock.infoAndJSONMembersBound) { c in
            writeCRCBitsFlags(frame.crc, frame.bits, frame.flags, &c)
            block.writeInfoAndJSONMembers(&c)
        }
    }

    /// `blockTails`: what the frame line's CRC member and `writeInfoAndJSONMembers` write
    /// for each CRC verdict and each block `iBlockTail` and `rBlockTail` name (I-blocks
    /// without CID or NAD, PCB 02, 03, 12 or 13, block number 0 or 1, chaining or not;
    /// R-blocks without CID or NAD, PCB A2, A3, B2 or B3, block number 0 or 1, ACK or
    /// NAK), without the INF length.
    static func makeBlockTails() -> PaddedLiterals {
        let b = OutputBuffer(initialCapacity: 96 * 128)
        var ranges: [Range<Int>] = []
        ranges.reserveCapacity(96)
        for crc in [CRCStatus.none, .ok, .bad] {
            for kind in [ISODEPBlockKind.i, .r] {
                for pcb: UInt8 in kind == .i ? [0x02, 0x03, 0x12, 0x13] : [0xA2, 0xA3, 0xB2, 0xB3] {
                    for number: UInt8 in [0, 1] {
                        for flag in [false, true] {
                            let block = ISODEPBlock(kind: kind, pcb: pcb, blockNumber: number,
                                                    chaining: kind == .i && flag, nak: kind == .r && flag)
                            precondition((block.iBlockTail ?? block.rBlockTail) == ranges.count & 31)
                            let start = b.position
                            b.withReserved(128 + ISODEPBlock.infoAndJSONMembersBound) { c in
                                c.ascii("\",\"crc\":\"")
                                c.ascii(crc.jsonName)
                                c.ascii("\",\"info\":\"")
                                block.writeInfoAndJSONMembers(&c)
                            }
                            // The INF length, 0 here, is written per frame.
                            ranges.append(start..<(b.position - 1))
                        }
                    }
                }
            }
        }
        return PaddedLiterals(b.contents, ranges: ranges)
    }

    /// `","crc":"..."`, `bits`, the flags and `,"info":"` (at most 128 bytes).
    @inline(__always)
    private func writeCRCBitsFlags(_ crc: CRCStatus, _ bits: UInt8, _ flags: FrameFlags, _ c: inout OutputCursor) {
        if bits == 0 && flags.isEmpty {
            // Nearly every frame: one literal of 21-23 bytes.
            c.asciiOf17To32(crcInfoOpening(crc))
            return
        }
        c.ascii("\",\"crc\":\"")
        c.ascii(crc.jsonName)
        c.byte(0x22)
        if bits != 0 {
            c.ascii(",\"bits\":")
            c.int(Int(bits))
        }
        if !flags.isEmpty {
            if flags.contains(.parityError) { c.ascii(",\"parity_error\":true") }
            if flags.contains(.snifferCRCError) { c.ascii(",\"sniffer_crc_error\":true") }
            if flags.contains(.recovered) { c.ascii(",\"recovered\":true") }
        }
        c.ascii(",\"info\":\"")
    }

    /// Any stage's record: `{"type":...,` its members `}`.
    public func record<R: DecodedRecord>(_ record: R) {
        writeRecord(R.typeName) { record.writeJSONMembers($0, $1) }
    }

    /// `record(_:)`, the record read where the caller keeps it (nothing here changes it;
    /// see `DecodeSink.recordInPlace`): the same lines, on the caller's value, which writes
    /// its whole line (`DecodedRecord.writeJSONLineInPlace`: an APDU's is not copied).
    public func recordInPlace<R: DecodedRecord>(_ record: inout R) {
        record.writeJSONLineInPlace(out, context)
        out.recordDone()
    }

    /// Both record paths: `members` writes the record's members.
    @inline(__always)
    private func writeRecord(_ typeName: StaticString, _ members: (OutputBuffer, RenderContext) -> Void) {
        out.ascii("{\"type\":\"")
        out.ascii(typeName)
        out.byte(0x22)
        members(out, context)
        out.ascii("}\n")
        out.recordDone()
    }

    public func problem(_ problem: InputProblem) {
        out.ascii("{\"type\":\"error\",\"file\":\"")
        out.jsonEscaped(problem.path)
        if let line = problem.lineNumber {
            out.ascii("\",\"line\":")
            out.int(line)
        } else {
            out.ascii("\",\"offset\":")
            if let offset = problem.offset { out.int(offset) } else { out.ascii("null") }
        }
        if let frame = problem.frame {
            out.ascii(",\"n\":")
            out.int(frame)
        }
        out.ascii(",\"message\":\"")
        out.jsonEscaped(problem.message)
        out.ascii("\"}\n")
        out.recordDone()
    }

    public func end(_ input: InputDescription) {}
    /// A card I-block inside `view` is remembered without a copy of its bytes.
    public func inputBytesUnchanging(_ view: ByteView?) { recentHex.setUnchanging(view) }
}

/// `,"dir":"<dir>","tech":"<tech>","hex":"` for a frame without a field event: what
/// the frame record writes piece by piece, as one literal.
@inline(__always)
func dirTechHexOpening(_ dir: Direction, _ tech: Tech) -> StaticString {
    switch (dir, tech) {
    case (.reader, .unknown): ",\"dir\":\"reader\",\"tech\":\"unknown\",\"hex\":\""
    case (.reader, .nfcA): ",\"dir\":\"reader\",\"tech\":\"nfc-a\",\"hex\":\""
    case (.reader, .nfcB): ",\"dir\":\"reader\",\"tech\":\"nfc-b\",\"hex\":\""
    case (.reader, .nfcF): ",\"dir\":\"reader\",\"tech\":\"nfc-f\",\"hex\":\""
    case (.reader, .nfcV): ",\"dir\":\"reader\",\"tech\":\"nfc-v\",\"hex\":\""
    case (.card, .unknown): ",\"dir\":\"card\",\"tech\":\"unknown\",\"hex\":\""
    case (.card, .nfcA): ",\"dir\":\"card\",\"tech\":\"nfc-a\",\"hex\":\""
    case (.card, .nfcB): ",\"dir\":\"card\",\"tech\":\"nfc-b\",\"hex\":\""
    case (.card, .nfcF): ",\"dir\":\"card\",\"tech\":\"nfc-f\",\"hex\":\""
    case (.card, .nfcV): ",\"dir\":\"card\",\"tech\":\"nfc-v\",\"hex\":\""
    }
}

/// `","crc":"<verdict>","info":"`: what `writeCRCBitsFlags` writes for a frame without
/// bits or flags.
@inline(__always)
func crcInfoOpening(_ crc: CRCStatus) -> StaticString {
    switch crc {
    case .none: "\",\"crc\":\"none\",\"info\":\""
    case .ok: "\",\"crc\":\"ok\",\"info\":\""
    case .bad: "\",\"crc\":\"bad\",\"info\":\""
    }
}

extension ISODEPBlock {
    /// An I-block without CID or NAD whose PCB is 02, 03, 12 or 13 and block number 0 or
    /// 1 (nearly every block of a payment capture): its index in `JSONLinesWriter`'s
    /// `blockTails`, 0-15 (PCB, block number, chaining bit); nil for any other block.
    @inline(__always)
    var iBlockTail: Int? {
        guard kind == .i, cid == nil, nad == nil, pcb & 0xEE == 0x02, blockNumber <= 1 else { return nil }
        return Int(pcb & 0x01 | (pcb &>> 3) & 0x02) &<< 2 | Int(blockNumber) &<< 1 | (chaining ? 1 : 0)
    }

    /// An R-block without CID or NAD whose PCB is A2, A3, B2 or B3 and block number 0 or
    /// 1 (the acknowledgements of chained blocks): its index in `blockTails`, 16-31 (PCB,
    /// block number, NAK); nil for any other block.
    @inline(__always)
    var rBlockTail: Int? {
        guard kind == .r, cid == nil, nad == nil, pcb & 0xEE == 0xA2, blockNumber <= 1 else { return nil }
        return 16 | Int(pcb & 0x01 | (pcb &>> 3) & 0x02) &<< 2 | Int(blockNumber) &<< 1 | (nak ? 1 : 0)
    }
}

extension LinkInfo {
    /// Whether this is `.block`, tested without copying the payload out.
    @inline(__always)
    var isISODEPBlock: Bool {
        if case .block = self { return true }
        return false
    }
}
