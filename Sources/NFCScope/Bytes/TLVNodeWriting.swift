// The fixed part of a TLV node's JSON and of its text line, each written into one
// reservation of the output buffer (the registry's node writers in
// Application/TLV/TLVRendering.swift, one call per node and per DOL value).
//
// These are `@_transparent` free functions: inlined into the node loops whatever the
// size of those loops. A method of `OutputBuffer` (a class) cannot be transparent, and
// a large `@inline(__always)` function is only inlined into small callers, so the
// earlier method stayed a call with ten arguments (~60 instructions of its own a node).
// They write through an `OutputCursor` (`OutputBuffer.reservedCursor`), with no check
// per piece: the reservation is sized for the largest case, and `commit` traps if the
// writing went past it.

/// A TLV node's JSON from its opening brace to its name member: `,` when `separator`,
/// then `{"tag":"` TAG `","len":` LEN `,"hex":"` HEX `"` NAME, then `,"text":"` when
/// `textMember`, else `}` when `close` (a node with nothing after its name), else
/// `,"children":[` when `openChildren` (a clean constructed node). TAG is the
/// low `tagLength` bytes (1 to 4) of `tag` in uppercase hex;
/// LEN is `declaredLength`, `null` when negative; HEX is `value` in lowercase, copied
/// from where the hex of `outer` was written (`outerHexAt`, a `position`) when `value`
/// lies inside `outer` and that hex is still in the buffer, else converted; NAME is
/// `name`'s bytes (nothing when empty), `,"name":null` when nil. Returns the position
/// of the value's hex. What `byte`, `ascii`, `hexUpper`, `int`,
/// `hex(_:inside:writtenAt:)` and `bytes` write one after the other
/// (`TLVNodeFastPathTests` compares them).
@_transparent
func writeTLVNodeFixedPart(to out: OutputBuffer, separator: Bool, tag: UInt32, tagLength: Int, declaredLength: Int,
                           value: ByteView, outer: ByteView?, outerHexAt: Int, name: ByteView?,
                           textMember: Bool, close: Bool = false, openChildren: Bool = false) -> Int {
    let n = value.count
    let nameCount = name?.count ?? 12
    // 1 + 8 + 8 + 8 + 20 + 8 + 1 literal and number bytes, the hex, the name, then at most 13
    // (`,"children":[`; counts of bytes in memory: no overflow; `commit` checks the writing
    // stayed inside).
    var c = out.reservedCursor(67 &+ n &<< 1 &+ nameCount)
    let dst = c.base
    let start = c.offset
    var o = start
    if separator { dst.storeBytes(of: 0x2C, toByteOffset: o, as: UInt8.self); o &+= 1 }
    let opening: StaticString = "{\"tag\":\""
    OutputBuffer.copyShort(from: UnsafeRawPointer(opening.utf8Start), to: dst + o, count: 8)
    o &+= 8
    o &+= storeTagHex(tag, tagLength: tagLength, to: dst, at: o)
    let len: StaticString = "\",\"len\":"
    OutputBuffer.copyShort(from: UnsafeRawPointer(len.utf8Start), to: dst + o, count: 8)
    o &+= 8
    if declaredLength < 0 {
        let null: StaticString = "null"
        OutputBuffer.copyShort(from: UnsafeRawPointer(null.utf8Start), to: dst + o, count: 4)
        o &+= 4
    } else if declaredLength < 10 {
        dst.storeBytes(of: 48 &+ UInt8(truncatingIfNeeded: declaredLength), toByteOffset: o, as: UInt8.self)
        o &+= 1
    } else if declaredLength < 100 {
        dst.storeBytes(of: UnsafeRawPointer(decimalPairs).loadUnaligned(fromByteOffset: declaredLength &<< 1, as: UInt16.self),
                       toByteOffset: o, as: UInt16.self)
        o &+= 2
    } else if declaredLength < 1000 {
        // Three digits (records, certificates): the first, then the last two as a pair.
        let hundreds = declaredLength / 100
        dst.storeBytes(of: 48 &+ UInt8(truncatingIfNeeded: hundreds), toByteOffset: o, as: UInt8.self)
        dst.storeBytes(of: UnsafeRawPointer(decimalPairs).loadUnaligned(fromByteOffset: (declaredLength &- hundreds &* 100) &<< 1,
                                                                        as: UInt16.self),
                       toByteOffset: o &+ 1, as: UInt16.self)
        o &+= 3
    } else {
        o &+= OutputBuffer.writeDigits(UInt64(declaredLength), to: dst, at: o)
    }
    let hexMember: StaticString = ",\"hex\":\""
    OutputBuffer.copyShort(from: UnsafeRawPointer(hexMember.utf8Start), to: dst + o, count: 8)
    o &+= 8
    let hexAt = o
    if n > 0, let src = value.base {
        var copied = false
        // `value.offset(in: outer)`, worked out here: the call was no longer inlined once
        // the node loop had grown (~12 instructions a node).
        if let outer, let outerBase = outer.base, case let d = outerBase.distance(to: src), d >= 0, d &+ n <= outer.count {
            // Where the parent's hex of these bytes lies in the buffer, if it still does.
            let from = outerHexAt &- out.flushedCount &+ (d &<< 1)
            if from >= 0 && from &+ (n &<< 1) <= start {
                copyUpTo64(from: UnsafeRawPointer(dst + from), to: dst + o, count: n &<< 1)
                copied = true
            }
        }
        if !copied { OutputBuffer.writeHexPairs(src, n, dst + o, UnsafeRawPointer(hexLowerPairs)) }
        o &+= n &<< 1
    }
    dst.storeBytes(of: 0x22, toByteOffset: o, as: UInt8.self)
    o &+= 1
    if let name {
        if let src = name.base, name.count > 0 {
            copyUpTo64(from: src, to: dst + o, count: name.count)
            o &+= name.count
        }
    } else {
        let null: StaticString = ",\"name\":null"
        OutputBuffer.copyShort(from: UnsafeRawPointer(null.utf8Start), to: dst + o, count: 12)
        o &+= 12
    }
    if textMember {
        let text: StaticString = ",\"text\":\""
        OutputBuffer.copyShort(from: UnsafeRawPointer(text.utf8Start), to: dst + o, count: 9)
        o &+= 9
    } else if close {
        dst.storeBytes(of: 0x7D, toByteOffset: o, as: UInt8.self)
        o &+= 1
    } else if openChildren {
        let children: StaticString = ",\"children\":["
        OutputBuffer.copyShort(from: UnsafeRawPointer(children.utf8Start), to: dst + o, count: 13)
        o &+= 13
    }
    c.offset = o
    out.commit(c)
    return out.flushedCount &+ hexAt
}

/// A TLV node's (or a DOL value's) text line up to its value's text: `indent` spaces
/// (none when not positive), TAG (the low `tagLength` bytes, 1 to 4, of `tag` in
/// uppercase hex), ` NAME` when `name` is not nil, ` (LEN)` with LEN `declaredLength`,
/// or when it is negative `indefinite` (when `indefinite`) or `?`, then ` HEX` (`hex`
/// in uppercase) when `hex` is not empty. What `spaces`, `hexUpper`, `byte`, `bytes`,
/// `ascii`, `int` and `hex(_:uppercase:)` write one after the other
/// (`TLVNodeFastPathTests` compares them).
@_transparent
func writeTLVTextLineOpening(to out: OutputBuffer, indent: Int, tag: UInt32, tagLength: Int, name: ByteView?,
                             declaredLength: Int, indefinite: Bool, hex: ByteView) {
    let n = hex.count
    let pad = Swift.max(indent, 0)
    // Spaces (at least 32 stored), 8 of tag, ` ` and the name, ` (`, 20 of number or
    // `indefinite`, `) `, the hex.
    var c = out.reservedCursor(Swift.max(pad, 32) + 8 + 1 + (name?.count ?? 0) + 2 + 20 + 2 + 2 * n)
    let dst = c.base
    var o = c.offset
    if pad <= 32 {
        let blanks: UInt64 = 0x2020_2020_2020_2020
        dst.storeBytes(of: blanks, toByteOffset: o, as: UInt64.self)
        dst.storeBytes(of: blanks, toByteOffset: o &+ 8, as: UInt64.self)
        dst.storeBytes(of: blanks, toByteOffset: o &+ 16, as: UInt64.self)
        dst.storeBytes(of: blanks, toByteOffset: o &+ 24, as: UInt64.self)
    } else {
        // Out of line: in line, the compiler made both branches one `memset` of
        // `max(pad, 32)` bytes, a call for every line (~12 instructions a line).
        OutputBuffer.fillSpaces(dst + o, count: pad)
    }
    o &+= pad
    o &+= storeTagHex(tag, tagLength: tagLength, to: dst, at: o)
    if let name {
        dst.storeBytes(of: 0x20, toByteOffset: o, as: UInt8.self)
        o &+= 1
        if let src = name.base, name.count > 0 {
            copyUpTo64(from: src, to: dst + o, count: name.count)
            o &+= name.count
        }
    }
    // " (" as two bytes, in memory order.
    dst.storeBytes(of: UInt16(0x2820).littleEndian, toByteOffset: o, as: UInt16.self)
    o &+= 2
    if declaredLength >= 0 {
        if declaredLength < 10 {
            dst.storeBytes(of: 48 &+ UInt8(truncatingIfNeeded: declaredLength), toByteOffset: o, as: UInt8.self)
            o &+= 1
        } else if declaredLength < 100 {
            dst.storeBytes(of: UnsafeRawPointer(decimalPairs).loadUnaligned(fromByteOffset: declaredLength &<< 1, as: UInt16.self),
                           toByteOffset: o, as: UInt16.self)
            o &+= 2
        } else {
            o &+= OutputBuffer.writeDigits(UInt64(declaredLength), to: dst, at: o)
        }
    } else if indefinite {
        let word: StaticString = "indefinite"
        OutputBuffer.copyShort(from: UnsafeRawPointer(word.utf8Start), to: dst + o, count: 10)
        o &+= 10
    } else {
        dst.storeBytes(of: 0x3F, toByteOffset: o, as: UInt8.self)
        o &+= 1
    }
    dst.storeBytes(of: 0x29, toByteOffset: o, as: UInt8.self)
    o &+= 1
    if n > 0 {
        dst.storeBytes(of: 0x20, toByteOffset: o, as: UInt8.self)
        o &+= 1
        if let src = hex.base {
            OutputBuffer.writeHexPairs(src, n, dst + o, UnsafeRawPointer(hexUpperPairs))
            o &+= n &<< 1
        }
    }
    c.offset = o
    out.commit(c)
}

/// `OutputBuffer.copyShort` with 17 to 64 bytes (a node's name member, the hex of a
/// value of at most 32 bytes) as two or four 16-byte moves, overlapping, without its
/// loop. Reads exactly `n` bytes, writes exactly `n` (not overlapping the source).
@_transparent
func copyUpTo64(from src: UnsafeRawPointer, to dst: UnsafeMutableRawPointer, count n: Int) {
    if n > 16 && n <= 64 {
        let first = src.loadUnaligned(as: SIMD16<UInt8>.self)
        let last = src.loadUnaligned(fromByteOffset: n &- 16, as: SIMD16<UInt8>.self)
        if n > 32 {
            let second = src.loadUnaligned(fromByteOffset: 16, as: SIMD16<UInt8>.self)
            let third = src.loadUnaligned(fromByteOffset: n &- 32, as: SIMD16<UInt8>.self)
            dst.storeBytes(of: second, toByteOffset: 16, as: SIMD16<UInt8>.self)
            dst.storeBytes(of: third, toByteOffset: n &- 32, as: SIMD16<UInt8>.self)
        }
        dst.storeBytes(of: first, as: SIMD16<UInt8>.self)
        dst.storeBytes(of: last, toByteOffset: n &- 16, as: SIMD16<UInt8>.self)
    } else {
        OutputBuffer.copyShort(from: src, to: dst, count: n)
    }
}

/// The low `tagLength` bytes (clamped to 1...4) of `tag` as uppercase hex at `dst + o`, for
/// both fixed parts; returns the bytes written (twice the byte count). Needs 8 bytes of
/// room: for one- and two-byte tags (nearly all) two pairs are stored without a loop,
/// the second overwritten by what follows when the tag has one byte.
@_transparent
func storeTagHex(_ tag: UInt32, tagLength: Int, to dst: UnsafeMutableRawPointer, at o: Int) -> Int {
    let tagBytes = Swift.max(1, Swift.min(4, tagLength))
    let upper = UnsafeRawPointer(hexUpperPairs)
    if tagBytes <= 2 {
        let first = Int(truncatingIfNeeded: (tag >> UInt32(truncatingIfNeeded: (tagBytes &- 1) &<< 3)) & 0xFF)
        let second = Int(truncatingIfNeeded: tag & 0xFF)
        dst.storeBytes(of: upper.loadUnaligned(fromByteOffset: first &<< 1, as: UInt16.self), toByteOffset: o, as: UInt16.self)
        dst.storeBytes(of: upper.loadUnaligned(fromByteOffset: second &<< 1, as: UInt16.self), toByteOffset: o &+ 2,
                       as: UInt16.self)
    } else {
        var k = 0
        while k < tagBytes {
            let b = Int(truncatingIfNeeded: (tag >> UInt32(truncatingIfNeeded: (tagBytes &- 1 &- k) &* 8)) & 0xFF)
            dst.storeBytes(of: upper.loadUnaligned(fromByteOffset: b &<< 1, as: UInt16.self), toByteOffset: o &+ (k &<< 1),
                           as: UInt16.self)
            k &+= 1
        }
    }
    return tagBytes &<< 1
}
