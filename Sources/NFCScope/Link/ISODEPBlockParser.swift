// Splits an ISO 14443-4 block (without CRC) into PCB, optional CID/NAD and INF.
// Reassembly of chained I-blocks is not done here; this only reads one block.

public enum ISODEPBlockParser {
    /// The block kind the PCB codes, or nil when it fits no block pattern.
    // Always inlined: the link layer asks it for nearly every frame, and the call
    // showed in profiles of `stats`.
    @inlinable @inline(__always)
    public static func kind(ofPCB pcb: UInt8) -> ISODEPBlockKind? {
        if pcb & 0xE2 == 0x02 { return .i }
        if pcb & 0xE6 == 0xA2 { return .r }
        if pcb & 0xC7 == 0xC2 { return .s }
        // S(PARAMETERS), added in ISO 14443-4:2016, is 1111 0x00: bit 2 clear.
        if pcb & 0xF7 == 0xF0 { return .s }
        return nil
    }

    /// Bytes a block with this PCB needs before any CRC: PCB, CID, NAD and the
    /// one-byte INF of S(WTX)/S(PARAMETERS). Used to tell a block whose CRC was
    /// lost (some Proxmark3 sniffs record `F2 01`) from one with a wrong CRC.
    public static func minimumLength(ofPCB pcb: UInt8) -> Int {
        minimumLength(ofPCB: pcb, kind: kind(ofPCB: pcb))
    }

    /// `minimumLength(ofPCB:)` for a PCB whose kind the caller already worked out
    /// (the link layer classifies each PCB once per frame).
    @inline(__always)
    static func minimumLength(ofPCB pcb: UInt8, kind: ISODEPBlockKind?) -> Int {
        guard let kind else { return 1 }
        var n = 1
        if pcb & 0x08 != 0 { n += 1 }
        switch kind {
        case .i: if pcb & 0x04 != 0 { n += 1 }
        case .r: break
        case .s: if pcb & 0x30 == 0x30 { n += 1 }
        }
        return n
    }

    /// Parses `payload` (the frame without CRC). On failure the error says why:
    /// `.badBlock` for a PCB that fits no pattern, `.malformed` for missing bytes.
    public static func parse(_ payload: ByteView) -> (block: ISODEPBlock?, error: FrameError?) {
        guard let pcb = payload.byte(0) else { return (nil, FrameError(.malformed, 0)) }
        return parse(payload, pcb: pcb, kind: kind(ofPCB: pcb))
    }

    /// `parse(_:)` for a payload whose first byte `pcb` the caller has read and
    /// classified as `kind`.
    @inline(__always)
    static func parse(_ payload: ByteView, pcb: UInt8, kind: ISODEPBlockKind?) -> (block: ISODEPBlock?, error: FrameError?) {
        guard let kind else { return (nil, FrameError(.badBlock, Int(pcb))) }
        var block = ISODEPBlock(parsing: pcb, kind: kind)
        var i = 1
        if pcb & 0x08 != 0 {
            guard let cid = payload.byte(i) else { return (nil, FrameError(.malformed, i)) }
            // Only the low 4 bits are the CID; the top 2 bits carry power level indication.
            block.cid = cid & 0x0F
            i += 1
        }
        switch kind {
        case .i:
            block.blockNumber = pcb & 0x01
            block.chaining = pcb & 0x10 != 0
            if pcb & 0x04 != 0 {
                guard let nad = payload.byte(i) else { return (nil, FrameError(.malformed, i)) }
                block.nad = nad
                i += 1
            }
        case .r:
            block.blockNumber = pcb & 0x01
            block.nak = pcb & 0x10 != 0
        case .s:
            switch pcb & 0x30 {
            case 0x00: block.sType = .deselect
            case 0x30: block.sType = pcb & 0x02 != 0 ? .wtx : .parameters
            default: block.sType = .other
            }
            if block.sType == .wtx {
                guard let inf = payload.byte(i) else { return (nil, FrameError(.malformed, i)) }
                // The top 2 bits of the INF byte are power level indication, not WTXM.
                block.wtxm = inf & 0x3F
            }
        }
        block.inf = payload.suffix(from: i)
        // Every field above is what the PCB codes (the fields' observers' setting of the
        // flag before this is folded away).
        block.departsFromPCB = false
        return (block, nil)
    }
}
