// Frame numbers of one record (`ISODEPExchange.frames`) as a view, the way a
// `ByteView` is a view of bytes: a window onto numbers owned by someone else (the
// ISO-DEP reassembler's list, a test's array), valid only while the owner is alive
// and unchanged. The pipeline hands a record's frame numbers to a sink for the
// duration of the call that receives the record, as it does its command and
// response bytes; a sink that keeps them copies them (`Array(exchange.frames)`).
//
// As a view of plain numbers it is a trivial value: handing an exchange on copies
// two words, with no reference count to raise and drop per exchange, and the
// reassembler's list is written in place without a uniqueness check per block
// (an `ArraySlice` of the list cost both, about 2.5 % of `stats`).

public struct FrameNumbers: @unchecked Sendable {
    @usableFromInline let base: UnsafePointer<Int>?
    public let count: Int

    @inlinable
    init(base: UnsafePointer<Int>?, count: Int) {
        self.base = base
        self.count = count
    }

    /// No frames.
    public init() {
        self.base = nil
        self.count = 0
    }

    /// Runs `body` with a view over the numbers of an array (tests, and stages that
    /// collect their frame numbers in an array).
    public static func with<R>(_ numbers: [Int], _ body: (FrameNumbers) throws -> R) rethrows -> R {
        try numbers.withUnsafeBufferPointer { b in
            try body(FrameNumbers(base: b.baseAddress, count: b.count))
        }
    }

    /// `with(_:_:)` for an array slice.
    public static func with<R>(_ numbers: ArraySlice<Int>, _ body: (FrameNumbers) throws -> R) rethrows -> R {
        try numbers.withUnsafeBufferPointer { b in
            try body(FrameNumbers(base: b.baseAddress, count: b.count))
        }
    }

    /// The numbers as an array of their own (to keep them past the call).
    public var array: [Int] { Array(self) }
}

extension FrameNumbers: RandomAccessCollection {
    public typealias Index = Int
    public typealias Element = Int
    public typealias SubSequence = FrameNumbers
    public typealias Indices = Range<Int>

    @inlinable public var startIndex: Int { 0 }
    @inlinable public var endIndex: Int { count }

    /// Element access. An index outside the view is a programming error (no index
    /// here comes from input): debug builds stop on it, release builds read nothing
    /// outside the view and answer 0 rather than crash.
    @inlinable
    public subscript(position: Int) -> Int {
        guard position >= 0, position < count, let base else {
            frameNumberOutOfRange(position, count)
            return 0
        }
        return base[position]
    }

    /// Rebased sub-view: index 0 is `bounds.lowerBound` of this view.
    @inlinable
    public subscript(bounds: Range<Int>) -> FrameNumbers {
        guard bounds.lowerBound >= 0, bounds.upperBound <= count else {
            frameNumberOutOfRange(bounds.upperBound, count)
            return FrameNumbers()
        }
        return FrameNumbers(base: base.map { $0 + bounds.lowerBound }, count: bounds.count)
    }
}

extension FrameNumbers: Equatable {
    /// Equal when the numbers are (wherever they lie).
    public static func == (a: FrameNumbers, b: FrameNumbers) -> Bool {
        a.elementsEqual(b)
    }
}

@usableFromInline
func frameNumberOutOfRange(_ i: Int, _ count: Int) {
    // Unreachable from input: reaching this is a bug in the decoder itself, which
    // the test suite (a debug build) must catch.
    assertionFailure("FrameNumbers index \(i) out of range 0..<\(count)")
}

/// A growable list of frame numbers that hands out `FrameNumbers` views of its
/// contents (the ISO-DEP reassembler's frames of the exchange in progress). A view
/// stays valid until the next change of the list.
final class FrameNumberList: @unchecked Sendable {
    @exclusivity(unchecked) private var storage: UnsafeMutablePointer<Int>?
    @exclusivity(unchecked) private var capacity: Int = 0
    @exclusivity(unchecked) private(set) var count: Int = 0
    /// The first and last numbers counted by `tally` (valid while `count > 0`).
    @exclusivity(unchecked) private var tallyFirst = 0
    @exclusivity(unchecked) private var tallyLast = 0

    init(capacity: Int = 0) {
        if capacity > 0 { grow(to: capacity) }
    }

    deinit { storage?.deallocate() }

    @inline(never)
    private func grow(to minimum: Int) {
        var newCapacity = Swift.max(capacity &* 2, 64)
        while newCapacity < minimum { newCapacity &*= 2 }
        let fresh = UnsafeMutablePointer<Int>.allocate(capacity: newCapacity)
        if let storage {
            fresh.update(from: storage, count: count)
            storage.deallocate()
        }
        storage = fresh
        capacity = newCapacity
    }

    @inline(__always)
    func removeAll() { count = 0 }

    /// Appends `n` (once per ISO-DEP block: inlined).
    @inline(__always)
    func append(_ n: Int) {
        if count == capacity { grow(to: count &+ 1) }
        guard let storage else { return }
        storage[count] = n
        count &+= 1
    }

    /// Counts `n` without storing it: only the count and the first and last numbers
    /// are kept (`first(counting: true)`, `last(counting: true)`). For a list whose
    /// numbers nobody reads (a receiver that only counts exchanges); a list is filled
    /// by `tally` or by `append` between two `removeAll`s, not both.
    @inline(__always)
    func tally(_ n: Int) {
        if count == 0 { tallyFirst = n }
        tallyLast = n
        count &+= 1
    }

    /// The first number of the list, nil when it is empty; `counting`: it was filled
    /// by `tally`.
    func first(counting: Bool) -> Int? {
        if counting { return count > 0 ? tallyFirst : nil }
        return number(0)
    }

    /// The last number of the list, nil when it is empty; `counting` as for `first`.
    func last(counting: Bool) -> Int? {
        if counting { return count > 0 ? tallyLast : nil }
        return number(count &- 1)
    }

    /// The number at `i`; nil outside the list.
    func number(_ i: Int) -> Int? {
        guard i >= 0, i < count, let storage else { return nil }
        return storage[i]
    }

    /// The whole list as a view.
    var view: FrameNumbers {
        @inline(__always) get { FrameNumbers(base: storage.map { UnsafePointer($0) }, count: count) }
    }
}
