// A minimal pcapng writer: one section, interfaces with nanosecond timestamps
// (if_tsresol = 9), Enhanced Packet Blocks. Our own because libpcap 1.10 has no
// pcapng dump API (pcap_dump_open writes classic pcap only), and a capture with
// both NFC-A/B and NFC-F/V frames needs two link types in one file.

public final class PcapngWriter {
    private let file: WritableFile?
    private let out: OutputBuffer
    /// Link types of the interfaces described so far, in interface-id order.
    public private(set) var interfaces: [UInt32] = []
    private var block: [UInt8] = []
    /// Live captures: a second copy of every block goes here.
    private let mirror: OutputBuffer?

    /// A file written as it happens (`nfcscope capture`): each block is written out as
    /// soon as it is complete, so the file is valid after every one, and copied to
    /// `mirror` (a descriptor the caller keeps open) when given.
    public struct Live {
        public var mirror: Int32?
        public init(mirror: Int32?) { self.mirror = mirror }
    }

    /// Creates (or truncates) `path` and writes the section header.
    public init(path: String, application: String, live: Live? = nil) throws(CaptureWriteError) {
        // `-`: standard output (a copy of it, closed at the end like a file).
        let file = try WritableFile(path: path)
        self.file = file
        out = file.out
        mirror = live?.mirror.map { OutputBuffer(fd: $0) }
        if live != nil {
            out.flushEachRecord = true
            mirror?.flushEachRecord = true
        }
        writeSectionHeader(application: application)
    }

    /// Writes into `output` (an in-memory buffer: read the file with `output.contents`).
    package init(output: OutputBuffer, application: String) {
        file = nil
        out = output
        mirror = nil
        writeSectionHeader(application: application)
    }

    /// The id of the interface of `linkType`, describing it first if needed.
    public func interface(for linkType: UInt32) -> UInt32 {
        if let i = interfaces.firstIndex(of: linkType) { return UInt32(i) }
        block.removeAll(keepingCapacity: true)
        u16(UInt16(truncatingIfNeeded: linkType))
        u16(0)
        u32(0)  // no snap length limit
        option(code: 9, [9])  // if_tsresol: 10^-9 s
        option(code: 0, [])
        emit(type: 1)
        interfaces.append(linkType)
        return UInt32(interfaces.count - 1)
    }

    /// One Enhanced Packet Block; `timeNanos` since the epoch, not negative.
    /// `comment` becomes the block's opt_comment, which Wireshark shows as the packet comment.
    public func packet(interface: UInt32, timeNanos: Int64, _ data: [UInt8], comment: String? = nil) {
        let time = UInt64(max(0, timeNanos))
        block.removeAll(keepingCapacity: true)
        u32(interface)
        u32(UInt32(truncatingIfNeeded: time >> 32))
        u32(UInt32(truncatingIfNeeded: time))
        u32(UInt32(truncatingIfNeeded: data.count))
        u32(UInt32(truncatingIfNeeded: data.count))
        block.append(contentsOf: data)
        pad()
        if let comment {
            option(code: 1, Array(comment.utf8.prefix(0xFFFF)))  // opt_comment
            option(code: 0, [])
        }
        emit(type: 6)
    }

    /// Flushes and closes; throws when anything could not be written.
    public func close() throws(CaptureWriteError) {
        if let file { try file.close(what: "pcapng") } else { out.flush() }
    }

    private func writeSectionHeader(application: String) {
        block.removeAll(keepingCapacity: true)
        u32(0x1A2B_3C4D)  // byte-order magic, written in our (little-endian) order
        u16(1)
        u16(0)
        u32(0xFFFF_FFFF)  // section length not given
        u32(0xFFFF_FFFF)
        option(code: 4, Array(application.utf8))  // shb_userappl
        option(code: 0, [])
        emit(type: 0x0A0D_0D0A)
    }

    /// Block type, total length, body, total length again.
    private func emit(type: UInt32) {
        let total = UInt32(truncatingIfNeeded: block.count + 12)
        for buffer in [out, mirror] {
            guard let buffer else { continue }
            outU32(type, buffer)
            outU32(total, buffer)
            buffer.bytes(block)
            outU32(total, buffer)
            buffer.recordDone()
        }
    }

    private func outU32(_ v: UInt32, _ buffer: OutputBuffer) {
        buffer.byte(UInt8(truncatingIfNeeded: v))
        buffer.byte(UInt8(truncatingIfNeeded: v >> 8))
        buffer.byte(UInt8(truncatingIfNeeded: v >> 16))
        buffer.byte(UInt8(truncatingIfNeeded: v >> 24))
    }

    private func option(code: UInt16, _ value: [UInt8]) {
        u16(code)
        u16(UInt16(truncatingIfNeeded: value.count))
        block.append(contentsOf: value)
        pad()
    }

    private func pad() {
        while block.count % 4 != 0 { block.append(0) }
    }

    private func u16(_ v: UInt16) {
        block.append(UInt8(truncatingIfNeeded: v))
        block.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    private func u32(_ v: UInt32) {
        u16(UInt16(truncatingIfNeeded: v))
        u16(UInt16(truncatingIfNeeded: v >> 16))
    }
}
