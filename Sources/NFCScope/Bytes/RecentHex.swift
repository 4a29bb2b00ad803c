// The bytes whose hex a record wrote last (a frame's), kept so a later record that
// shows some of the same bytes as hex (an APDU's response data, inside the I-block
// frame written just before) copies the hex already in the buffer instead of
// converting the bytes again.
//
// Nothing is assumed about the memory the views point into (a reassembly buffer or a
// text parser's scratch may be reused): the remembered bytes are a copy, and the hex
// is copied only when the new view's bytes equal that copy where they were located,
// the hex is still in the buffer, and the buffer was not rewritten or handed on in
// between (`OutputBuffer.generation`). Otherwise the bytes are converted as before.
// The one exception: a view inside the input's unchanging mapping (`setUnchanging`,
// told by `CaptureDecoder.run` for the run's length) is not copied and not compared:
// its bytes cannot differ from those its hex was written from.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

package final class RecentHex {
    private var copy: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    private var count = 0
    /// The view the copy was made from: only its address is used, to find where a
    /// later view may lie in it (the bytes themselves are compared with `copy`).
    private var source = ByteView()
    private var position = -1
    private var generation = -1
    /// The input's read-only mapping during a run (`setUnchanging`), else empty.
    private var unchanging = ByteView()
    /// `source` lies in `unchanging`: `copy` is not used.
    private var inPlace = false

    /// Shorter runs are converted: remembering and checking would cost more.
    static var worthwhile: Int { 16 }

    package init() {
        capacity = 512
        copy = .allocate(capacity: capacity)
    }

    deinit { copy.deallocate() }

    /// Remembers that `out` holds the lowercase hex of `bytes` from `position` on.
    /// Inlined into the frame writer (a call for each of its I-blocks' frames): a frame of
    /// the input's mapping is only noted; a copy of another's bytes is kept out of line.
    @inline(__always)
    func remember(_ bytes: ByteView, writtenAt position: Int, in out: OutputBuffer) {
        let n = bytes.count
        guard n > 0, bytes.base != nil else { forget(); return }
        count = n
        source = bytes
        self.position = position
        generation = out.generation
        if bytes.offset(in: unchanging) != nil {
            inPlace = true
            return
        }
        keepCopy(bytes)
    }

    /// `remember`'s copy of bytes outside the input's mapping (`source` and `count` set).
    @inline(never)
    private func keepCopy(_ bytes: ByteView) {
        inPlace = false
        let n = bytes.count
        guard n > 0, let src = bytes.base else { forget(); return }
        if n > capacity {
            copy.deallocate()
            capacity = n
            copy = .allocate(capacity: n)
        }
        copy.update(from: src.assumingMemoryBound(to: UInt8.self), count: n)
    }

    func forget() {
        count = 0
        position = -1
        source = ByteView()
        inPlace = false
    }

    /// The input's bytes in `view` stay unchanged until the next call (nil: the run
    /// ended, its mapping may go). What was remembered is forgotten either way.
    func setUnchanging(_ view: ByteView?) {
        forget()
        unchanging = view ?? ByteView()
    }

    /// Lowercase hex of `v`: copied from the remembered hex when `v`'s bytes are a run
    /// of the remembered ones, else converted.
    func hex(_ v: ByteView, to out: OutputBuffer) {
        let n = v.count
        guard n > 0, let src = v.base else { return }
        if position >= 0, out.generation == generation, let d = v.offset(in: source), d &+ n <= count,
           inPlace || memcmp(copy + d, src, n) == 0, out.copyWritten(from: position &+ (d &<< 1), count: n &<< 1) {
            return
        }
        out.hex(v)
    }

    /// `lead`, then the lowercase hex of `v`: what `out.ascii(lead)` and `hex(v, to:)` write.
    /// Inlined into the APDU record's response member (once a record): a copied hex goes
    /// with the lead in one reservation, without the two calls `hex` made.
    @inline(__always)
    func hex(_ v: ByteView, after lead: StaticString, to out: OutputBuffer) {
        let n = v.count
        if n > 0, let src = v.base, position >= 0, out.generation == generation, let d = v.offset(in: source),
           d &+ n <= count, inPlace || memcmp(copy + d, src, n) == 0,
           out.copyWritten(after: lead, from: position &+ (d &<< 1), count: n &<< 1) {
            return
        }
        out.ascii(lead)
        out.hex(v)
    }
}
