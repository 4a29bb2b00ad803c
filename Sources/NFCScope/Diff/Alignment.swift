// Sequence alignment of two key sequences (Myers 1986, "An O(ND) difference
// algorithm"): the shortest edit script, so an inserted exchange is one insertion
// and everything after it stays aligned. Memory: the common prefix and suffix are
// matched directly; the middle is aligned in windows of at most `window` keys a
// side, so the trace of one run holds at most (2·window+2)² 32-bit integers (17 MB).
// The operations come one at a time from `AlignmentStream`, front to back, so `diff`
// never holds more of them than one window's.

package enum AlignOp: Equatable {
    case match(Int, Int)
    case delete(Int)
    case insert(Int)
}

package enum Alignment {
    package static let window = 1024

    /// The whole alignment at once (`AlignmentStream` gives it one operation at a time).
    package static func align(_ a: [Int32], _ b: [Int32]) -> [AlignOp] {
        var ops: [AlignOp] = []
        ops.reserveCapacity(max(a.count, b.count))
        var stream = AlignmentStream(a, b)
        while let op = stream.next() { ops.append(op) }
        return ops
    }

    /// Myers' greedy forward search with a saved frontier per step, then a walk back.
    package static func myers(_ a: [Int32], _ ra: Range<Int>, _ b: [Int32], _ rb: Range<Int>) -> [AlignOp] {
        let n = ra.count, m = rb.count
        if n == 0 { return rb.map { .insert($0) } }
        if m == 0 { return ra.map { .delete($0) } }
        let maxD = n + m
        let offset = maxD + 1
        var v = [Int32](repeating: 0, count: 2 * maxD + 3)
        var trace: [[Int32]] = []
        var found = false
        for d in 0...maxD {
            // Save the frontier of diagonals -d...d before step d (as Myers' trace).
            trace.append(Array(v[(offset - d - 1)...(offset + d + 1)]))
            var k = -d
            while k <= d {
                var x: Int
                if k == -d || (k != d && v[offset + k - 1] < v[offset + k + 1]) {
                    x = Int(v[offset + k + 1])
                } else {
                    x = Int(v[offset + k - 1]) + 1
                }
                var y = x - k
                while x < n, y < m, a[ra.lowerBound + x] == b[rb.lowerBound + y] { x += 1; y += 1 }
                v[offset + k] = Int32(x)
                if x >= n && y >= m { found = true; break }
                k += 2
            }
            if found { break }
        }
        // Walk back from (n, m).
        var ops: [AlignOp] = []
        var x = n, y = m
        for d in stride(from: trace.count - 1, through: 0, by: -1) {
            let saved = trace[d]
            // saved[i] is v[offset + (i - d - 1)]
            func vAt(_ k: Int) -> Int { Int(saved[k + d + 1]) }
            let k = x - y
            if d == 0 {
                while x > 0, y > 0 { ops.append(.match(ra.lowerBound + x - 1, rb.lowerBound + y - 1)); x -= 1; y -= 1 }
                break
            }
            let prevK = (k == -d || (k != d && vAt(k - 1) < vAt(k + 1))) ? k + 1 : k - 1
            let prevX = vAt(prevK)
            let prevY = prevX - prevK
            while x > prevX, y > prevY, x > 0, y > 0 {
                ops.append(.match(ra.lowerBound + x - 1, rb.lowerBound + y - 1)); x -= 1; y -= 1
            }
            if prevK == k + 1 {
                ops.append(.insert(rb.lowerBound + y - 1))
            } else {
                ops.append(.delete(ra.lowerBound + x - 1))
            }
            x = prevX; y = prevY
        }
        return ops.reversed()
    }
}

/// The alignment of `a` and `b` one operation at a time, in order (every index of
/// `a` and of `b` appears in exactly one operation, increasing): the same operations
/// as `Alignment.align`, one window of them held at a time.
package struct AlignmentStream {
    private let a: [Int32]
    private let b: [Int32]
    private var i = 0
    private var j = 0
    /// The operations of the last window, not all handed out yet.
    private var pending: [AlignOp] = []
    private var handed = 0

    package init(_ a: [Int32], _ b: [Int32]) {
        self.a = a
        self.b = b
    }

    package mutating func next() -> AlignOp? {
        if handed < pending.count {
            defer { handed += 1 }
            return pending[handed]
        }
        // A common run first: it costs nothing to keep.
        if i < a.count, j < b.count, a[i] == b[j] {
            defer { i += 1; j += 1 }
            return .match(i, j)
        }
        guard i < a.count || j < b.count else { return nil }
        let aEnd = min(a.count, i + Alignment.window)
        let bEnd = min(b.count, j + Alignment.window)
        let windowOps = Alignment.myers(a, i..<aEnd, b, j..<bEnd)
        // When the window was cut short, keep only up to its last match, so that an
        // insertion near the edge is decided with what follows it in view.
        let whole = aEnd == a.count && bEnd == b.count
        var keep = windowOps.count
        if !whole, let last = windowOps.lastIndex(where: { if case .match = $0 { true } else { false } }) {
            keep = last + 1
        }
        pending = Array(windowOps.prefix(keep))
        handed = 0
        for op in pending {
            switch op {
            case .match(let x, let y): i = x + 1; j = y + 1
            case .delete(let x): i = x + 1
            case .insert(let y): j = y + 1
            }
        }
        return self.next()
    }
}
