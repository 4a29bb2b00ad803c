// Field extraction for ISO 14443-3 type A commands and answers and the ISO 14443-4
// type A activation (RATS/ATS, PPS). Pure functions over one frame's payload;
// the state that links answers to commands lives in LinkDecoder.

public enum NFCA {
    public static let reqa: UInt8 = 0x26
    public static let wupa: UInt8 = 0x52
    public static let cascadeTag: UInt8 = 0x88

    /// FSC/FSD for a frame size integer (FSCI, FSDI, ATQB max frame size code).
    /// ISO 14443-4:2016 says codes D-F are read as C.
    @inlinable
    public static func frameSize(_ code: UInt8) -> Int {
        switch code {
        case 0: 16
        case 1: 24
        case 2: 32
        case 3: 40
        case 4: 48
        case 5: 64
        case 6: 96
        case 7: 128
        case 8: 256
        case 9: 512
        case 10: 1024
        case 11: 2048
        default: 4096
        }
    }

    /// Cascade level of an anticollision/SELECT command byte (93, 95, 97).
    @inlinable
    public static func cascadeLevel(_ sel: UInt8) -> UInt8? {
        switch sel {
        case 0x93: 1
        case 0x95: 2
        case 0x97: 3
        default: nil
        }
    }

    /// UID CLn (4 bytes) followed by its BCC: true when the BCC is their XOR.
    public static func bccOK(_ uidAndBCC: ByteView) -> Bool {
        guard let a = uidAndBCC.byte(0), let b = uidAndBCC.byte(1), let c = uidAndBCC.byte(2),
              let d = uidAndBCC.byte(3), let bcc = uidAndBCC.byte(4) else { return false }
        return a ^ b ^ c ^ d == bcc
    }

    public static func rats(_ p: ByteView) -> LinkInfo {
        let param = p.byte(1) ?? 0
        let fsdi = param >> 4
        return .rats(fsdi: fsdi, fsd: frameSize(fsdi), cid: param & 0x0F)
    }

    /// ATS fields. TL counts the ATS bytes (itself included, CRC excluded); when it
    /// disagrees with the frame the fields are read within the shorter of the two
    /// and the error points at the byte where they part.
    public static func ats(_ p: ByteView) -> (ATSInfo, FrameError?) {
        let tl = p.byte(0) ?? 0
        let end = min(Int(tl), p.count)
        var error: FrameError? = Int(tl) == p.count ? nil : FrameError(.malformed, end)
        var info = ATSInfo(tl: tl)
        guard end >= 2, let t0 = p.byte(1) else { return (info, error) }
        info.t0 = t0
        info.fsci = t0 & 0x0F
        info.fsc = frameSize(info.fsci)
        var i = 2
        func next() -> UInt8? {
            guard i < end, let b = p.byte(i) else {
                if error == nil { error = FrameError(.malformed, i) }
                return nil
            }
            i += 1
            return b
        }
        if t0 & 0x10 != 0 { info.ta = next() }
        if t0 & 0x20 != 0, let tb = next() {
            info.tb = tb
            info.fwi = tb >> 4
            info.sfgi = tb & 0x0F
        }
        if t0 & 0x40 != 0 { info.tc = next() }
        info.historical = p.slice(i, max(0, end - i)) ?? ByteView()
        return (info, error)
    }

    /// PPS request: PPSS (D0 | CID), PPS0 (bit 5: PPS1 follows), PPS1 (DSI, DRI).
    public static func pps(_ p: ByteView) -> LinkInfo {
        let ppss = p.byte(0) ?? 0xD0
        let pps0 = p.byte(1)
        let pps1 = (pps0 ?? 0) & 0x10 != 0 ? p.byte(2) : nil
        return .pps(cid: ppss & 0x0F, pps0: pps0, pps1: pps1)
    }
}
