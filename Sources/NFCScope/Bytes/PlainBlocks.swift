// Blocks of bytes the caches keep (`RenderedValueCache`'s rendered values, `TLVParseMemo`'s
// trees), from `malloc` and back to `free`. `UnsafeMutablePointer.allocate` asks the Swift
// runtime for its default alignment, which it serves with `posix_memalign` (~210
// instructions a block here against `malloc`'s ~130); `malloc`'s 16-byte alignment is all
// these blocks need. A block from here goes back through `free(_:)` only.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum PlainBlocks {
    /// A block of at least `count` bytes (16-byte aligned).
    @inline(__always)
    static func raw(_ count: Int) -> UnsafeMutableRawPointer {
        // No memory: as `allocate` (which stops the process), through it.
        malloc(Swift.max(count, 1)) ?? UnsafeMutableRawPointer.allocate(byteCount: Swift.max(count, 1), alignment: 16)
    }

    @inline(__always)
    static func bytes(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        raw(count).bindMemory(to: UInt8.self, capacity: count)
    }

    /// Gives back a block from `raw` or `bytes` (nil: nothing).
    @inline(__always)
    static func free(_ block: UnsafeMutableRawPointer?) {
        #if canImport(Glibc)
        Glibc.free(block)
        #else
        Darwin.free(block)
        #endif
    }

    @inline(__always)
    static func free(_ block: UnsafeMutablePointer<UInt8>?) {
        free(block.map { UnsafeMutableRawPointer($0) })
    }
}
