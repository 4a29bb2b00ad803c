// Apple's Enhanced Contactless Polling: a frame a reader sends between polls
// (6A, version, data, CRC) telling a phone what kind of terminal it is, so the
// phone can pick the right pass before answering. Other tools call it unknown.
//
// Version 1 frames are 5 bytes before the CRC. Version 2: the low nibble of the
// third byte is the length of the data after the terminal type and subtype, the
// fourth byte is the terminal type, the fifth its subtype.

public struct AppleECPInfo: Sendable {
    public var version: UInt8
    /// Byte 2 of a version 2 frame (its low nibble gives the data length).
    public var configuration: UInt8?
    public var terminalType: UInt8?
    public var terminalSubtype: UInt8?
    /// What follows the header (v2: after the subtype; v1: after the version).
    public var data: ByteView
    /// False when the frame is shorter or longer than its version says.
    public var lengthOK: Bool

    /// Parses the frame without its CRC (`p[0]` is 6A).
    public init?(_ p: ByteView) {
        guard p.byte(0) == 0x6A, let version = p.byte(1) else { return nil }
        self.version = version
        switch version {
        case 0x02:
            configuration = p.byte(2)
            terminalType = p.byte(3)
            terminalSubtype = p.byte(4)
            data = p.suffix(from: 5)
            lengthOK = p.count >= 5 && Int((configuration ?? 0) & 0x0F) == p.count - 5
        default:
            data = p.suffix(from: 2)
            lengthOK = version != 0x01 || p.count == 5
        }
    }

    /// The terminal type as a word, nil when it is not a known one.
    public var terminalTypeName: StaticString? {
        switch terminalType {
        case 0x01?: "transit"
        case 0x02?: "access"
        case 0x03?: "identity"
        case 0x05?: "airdrop"
        default: nil
        }
    }
}
