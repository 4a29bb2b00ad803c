// Writes classic pcap files through the system libpcap's dump API, so the files we
// export are exactly what libpcap-based tools (tcpdump, Wireshark) expect to read.
// libpcap 1.10 can only dump classic pcap; pcapng goes through `PcapngWriter`.
//
// One of the two files (with LibpcapReader.swift) that touch libpcap and raw pointers.
import CPcap
#if canImport(Glibc)
import Glibc
#endif

public final class LibpcapDumper {
    private let pcap: OpaquePointer
    private var dumper: OpaquePointer?

    /// Creates (or truncates) `path` as a nanosecond-resolution pcap of `linkType`.
    public init(path: String, linkType: UInt32, snapLength: Int32 = 65535) throws(LibpcapError) {
        guard let dead = pcap_open_dead_with_tstamp_precision(
            Int32(bitPattern: linkType), snapLength, UInt32(PCAP_TSTAMP_PRECISION_NANO)) else {
            throw LibpcapError(message: "libpcap cannot create a pcap of link type \(linkType)")
        }
        guard let opened = pcap_dump_open(dead, path) else {
            let message = String(cString: pcap_geterr(dead))
            pcap_close(dead)
            throw LibpcapError(message: message)
        }
        pcap = dead
        dumper = opened
    }

    deinit {
        if let dumper { pcap_dump_close(dumper) }
        pcap_close(pcap)
    }

    /// Appends one record. With nanosecond precision libpcap takes the fraction of the
    /// second from `tv_usec` as nanoseconds. `timeNanos` must not be negative.
    public func dump(_ bytes: [UInt8], timeNanos: Int64) {
        guard let dumper else { return }
        var header = pcap_pkthdr()
        header.ts.tv_sec = Int(timeNanos / 1_000_000_000)
        header.ts.tv_usec = Int(timeNanos % 1_000_000_000)
        header.caplen = UInt32(truncatingIfNeeded: bytes.count)
        header.len = header.caplen
        bytes.withUnsafeBufferPointer { data in
            guard let base = data.baseAddress else { return }
            // pcap_dump's first argument is the dumper, typed as u_char* for pcap_loop callbacks.
            pcap_dump(UnsafeMutableRawPointer(dumper).assumingMemoryBound(to: UInt8.self), &header, base)
        }
    }

    /// Flushes and closes the file; throws when anything could not be written.
    public func close() throws(LibpcapError) {
        guard let dumper else { return }
        self.dumper = nil
        let flushed = pcap_dump_flush(dumper)
        let failed = flushed != 0 || ferror(pcap_dump_file(dumper)) != 0
        pcap_dump_close(dumper)
        if failed { throw LibpcapError(message: "write error while saving the pcap file") }
    }
}
