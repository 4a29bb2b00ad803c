// Where the NDEF message lies on each tag platform, from the bytes a reader read:
// - Type 2 Tag: the memory image from page 0; CC in page 3, TLV area from page 4
//   (byte 16) for the CC's data area size (Type 2 Tag Operation 1.1 sections 6.1, 2.3).
// - Type 5 Tag: the memory image from block 0; CC (4 or 8 bytes) then the TLV area
//   of MLEN × 8 bytes (Type 5 Tag 1.0 section 4.3).
// - Type 3 Tag: the blocks of the NDEF service (000B) from block 0; block 0 is the
//   attribute information block, the message is the first Ln bytes of the blocks
//   after it (Type 3 Tag Operation 1.1 section 6).
// - Type 4 Tag: the NDEF file from offset 0; NLEN (2 bytes) or, with the extended
//   NDEF File Control TLV, ENLEN (4 bytes), then the message (Type 4 Tag 3.0 section 5.2).
// Views returned point into the bytes passed in (or a buffer of the result's own).

/// A Type 2 Tag memory image taken apart.
public struct T2TNDEFArea: Sendable {
    public var cc: T2TCapabilityContainer
    public var memory: NDEFTagMemory
    /// The image held fewer bytes than the CC's data area (a partial read).
    public var incomplete: Bool

    /// `image` starts at page 0. Nil when it does not reach the CC (page 3).
    public init?(image: ByteView) {
        guard let ccBytes = image.slice(12, 4), let cc = T2TCapabilityContainer(ccBytes) else { return nil }
        self.cc = cc
        let area = image.suffix(from: 16).prefix(cc.dataAreaSize)
        incomplete = area.count < cc.dataAreaSize
        memory = NDEFTagMemory(dataArea: area, baseAddress: 16, platform: .type2)
    }
}

/// A Type 5 Tag memory image taken apart.
public struct T5TNDEFArea: Sendable {
    public var cc: T5TCapabilityContainer
    public var memory: NDEFTagMemory
    public var incomplete: Bool

    /// `image` starts at block 0. Nil when it does not hold the whole CC.
    public init?(image: ByteView) {
        guard let cc = T5TCapabilityContainer(image) else { return nil }
        self.cc = cc
        let area = image.suffix(from: cc.length).prefix(cc.dataAreaSize)
        incomplete = area.count < cc.dataAreaSize
        memory = NDEFTagMemory(dataArea: area, baseAddress: cc.length, platform: .type5)
    }
}

/// The NDEF service of a Type 3 Tag taken apart.
public struct T3TNDEFArea: Sendable {
    public var attributes: T3TAttributeInformation
    /// The first Ln bytes after block 0 (fewer when the blocks did not reach that far).
    public var message: ByteView
    public var incomplete: Bool

    /// `blocks`: the service's blocks from block 0, 16 bytes each, in order.
    public init?(blocks: ByteView) {
        guard let a = T3TAttributeInformation(blocks) else { return nil }
        attributes = a
        let data = blocks.suffix(from: 16)
        message = data.prefix(a.ln)
        incomplete = data.count < a.ln
    }
}

/// The NDEF file of a Type 4 Tag taken apart.
public struct T4TNDEFFile: Sendable {
    /// NLEN or ENLEN.
    public var length: Int
    public var message: ByteView
    public var incomplete: Bool

    /// `file` starts at offset 0; `extended`: the CC named the file with the extended
    /// NDEF File Control TLV (06), so the length field is 4 bytes. Nil when the length
    /// field is not all there.
    public init?(file: ByteView, extended: Bool) {
        let width = extended ? 4 : 2
        guard let n = extended ? file.u32be(0).map(Int.init) : file.u16be(0).map(Int.init) else { return nil }
        length = n
        let data = file.suffix(from: width)
        message = data.prefix(n)
        incomplete = data.count < n
    }
}
