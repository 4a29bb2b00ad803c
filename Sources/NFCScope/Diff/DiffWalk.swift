// The second pass of `diff`: both inputs read again at once, B on a thread of its
// own, and the alignment walked as their exchanges arrive. Each entry is handed to
// the writer as soon as both of its exchanges are there, then dropped: what is held
// is the first pass's keys and hashes, one window of alignment operations, the
// records in `DiffRecordQueue` (at most `DiffRecordQueue.capacity`) and the writer's
// few lines of context, whatever the inputs' sizes.
//
// Entries are the ones `diff` always wrote: a pair with equal hashes is equal; a pair
// whose hashes differ has its fields compared (the first `maxDetailedPairs` such pairs;
// later ones are changed without their fields) and is equal when no difference
// remains visible.

/// One side of an entry, as the writers show it.
package struct DiffItem {
    /// One line saying what the exchange is (`GENERATE AC → 9000`).
    package var summary: String
    /// The first component of its change paths (`apdu[GENERATE AC]`).
    package var label: String
    package var firstFrame: Int
    package var lastFrame: Int

    /// An exchange the second pass did not find again (the input changed between the passes).
    package static let missing = DiffItem(summary: "?", label: "?", firstFrame: 0, lastFrame: 0)

    init(summary: String, label: String, firstFrame: Int, lastFrame: Int) {
        self.summary = summary
        self.label = label
        self.firstFrame = firstFrame
        self.lastFrame = lastFrame
    }

    init(_ record: JSONValue) {
        summary = DiffKey.summary(of: record)
        label = DiffKey.label(of: record)
        (firstFrame, lastFrame) = DiffKey.frames(of: record)
    }
}

/// B's records of the second pass, on their way from B's thread to the walk.
final class DiffRecordQueue: @unchecked Sendable {
    /// Records held at most (unless no thread could be started: see `unbounded`).
    static let capacity = 64

    private let monitor = Monitor()
    private var items: [(index: Int, record: JSONValue)] = []
    private var head = 0
    private var done = false
    private var cancelled = false
    /// B is read on the calling thread before the walk starts: nothing would take
    /// records out while it runs, so none is waited for.
    var unbounded = false
    /// Most records held at once.
    private(set) var highWater = 0

    /// Called by B's reader: waits while the queue is full.
    func put(_ index: Int, _ record: JSONValue) {
        monitor.lock()
        defer { monitor.unlock() }
        while !cancelled && !unbounded && items.count - head >= Self.capacity { monitor.wait() }
        if cancelled { return }
        items.append((index, record))
        highWater = max(highWater, items.count - head)
        monitor.broadcast()
    }

    /// B's reader is done.
    func finish() {
        monitor.lock()
        done = true
        monitor.broadcast()
        monitor.unlock()
    }

    /// The walk is done: B's reader stops waiting (and what it still puts is dropped).
    func cancel() {
        monitor.lock()
        cancelled = true
        items = []
        head = 0
        monitor.broadcast()
        monitor.unlock()
    }

    /// The record of B's exchange `index`; nil when B's reader did not deliver it
    /// (it ended first, or went past it).
    func take(_ index: Int) -> JSONValue? {
        monitor.lock()
        defer { monitor.unlock() }
        while true {
            while head < items.count, items[head].index < index { head += 1 }
            if head < items.count {
                guard items[head].index == index else { return nil }
                let record = items[head].record
                head += 1
                if head >= 256 || head == items.count {
                    items.removeFirst(head)
                    head = 0
                }
                monitor.broadcast()
                return record
            }
            if done { return nil }
            monitor.wait()
        }
    }
}

package final class DiffWalk {
    /// Field lists are compared for at most this many pairs whose hashes differ;
    /// further pairs are reported as changed without their fields.
    package static let maxDetailedPairs = 20_000

    private let a: DiffSide
    private let b: DiffSide
    private let settings: DiffSettings
    private let options: FlattenOptions
    private var ops: AlignmentStream
    private var peeked: AlignOp?
    private let bRecords = DiffRecordQueue()
    private let emit: (DiffEntry) -> Void
    private let tooManyChanged: () -> Void
    private var detailed = 0

    /// `emit` gets the entries in order; `tooManyChanged` is called once, when the
    /// `maxDetailedPairs`-th pair with different hashes has its fields compared.
    package init(_ a: DiffSide, _ b: DiffSide, settings: DiffSettings, options: FlattenOptions,
                 tooManyChanged: @escaping () -> Void, emit: @escaping (DiffEntry) -> Void) {
        self.a = a
        self.b = b
        self.settings = settings
        self.options = options
        self.tooManyChanged = tooManyChanged
        self.emit = emit
        ops = AlignmentStream(a.keys, b.keys)
    }

    /// Most records of B held at once during `run` (tests: it does not grow with the input).
    package var queueHighWater: Int { bRecords.highWater }

    /// Runs the second pass: `readB` reads B again into the collector it gets, on a
    /// thread of its own; `readA` reads A on the calling thread. Both with the filter
    /// of the first pass (one each: a filter caches what it worked out).
    package func run(filters: (RecordFilter?, RecordFilter?), readA: (DiffCollector) -> Void,
                     readB: @escaping (DiffCollector) -> Void) {
        let queue = bRecords
        let count = b.count
        let collectorB = DiffCollector(side: b, pass: .second(visit: { j, record in
            if j < count { queue.put(j, record) }
        }), options: options, filter: filters.1)
        let collectorA = DiffCollector(side: a, pass: .second(visit: { [unowned self] i, record in
            exchangeA(i, record)
        }), options: options, filter: filters.0)
        WorkerThreads.run(count: 1, {
            readB(collectorB)
            queue.finish()
        }, meanwhile: {
            readA(collectorA)
            finish()
            queue.cancel()
        }, alone: { queue.unbounded = true })
    }

    private func nextOp() -> AlignOp? {
        if let op = peeked {
            peeked = nil
            return op
        }
        return ops.next()
    }

    /// A's exchange `i` of the second pass: the entries up to and including its own.
    private func exchangeA(_ i: Int, _ record: JSONValue) {
        guard i < a.count else { return }
        while let op = nextOp() {
            switch op {
            case .insert(let j):
                inserted(j)
            case .delete(let x):
                if x > i {
                    peeked = op
                    return
                }
                emit(DiffEntry(op: .deleted, a: x == i ? DiffItem(record) : .missing, b: nil))
                if x == i { return }
            case .match(let x, let y):
                if x > i {
                    peeked = op
                    return
                }
                matched(x, y, x == i ? record : nil)
                if x == i { return }
            }
        }
    }

    /// A's second pass ended: the entries left (B's last insertions; A's exchanges not
    /// found again, when A changed between the passes).
    private func finish() {
        while let op = nextOp() {
            switch op {
            case .insert(let j): inserted(j)
            case .delete: emit(DiffEntry(op: .deleted, a: .missing, b: nil))
            case .match(let x, let y): matched(x, y, nil)
            }
        }
    }

    private func inserted(_ j: Int) {
        let record = bRecords.take(j)
        emit(DiffEntry(op: .inserted, a: nil, b: record.map(DiffItem.init) ?? .missing))
    }

    private func matched(_ i: Int, _ j: Int, _ recordA: JSONValue?) {
        let recordB = bRecords.take(j)
        let itemA = recordA.map(DiffItem.init) ?? .missing
        let itemB = recordB.map(DiffItem.init) ?? .missing
        if a.hashes[i] == b.hashes[j] {
            emit(DiffEntry(op: .equal, a: itemA, b: itemB))
            return
        }
        guard detailed < Self.maxDetailedPairs else {
            emit(DiffEntry(op: .changed, a: itemA, b: itemB))
            return
        }
        detailed += 1
        if detailed == Self.maxDetailedPairs { tooManyChanged() }
        guard let recordA, let recordB else {
            emit(DiffEntry(op: .changed, a: itemA, b: itemB))
            return
        }
        let (changes, ignored) = DiffEngine.compare(DiffFlattener.flatten(recordA, options: options),
                                                    DiffFlattener.flatten(recordB, options: options),
                                                    settings: settings)
        emit(DiffEntry(op: changes.isEmpty ? .equal : .changed, a: itemA, b: itemB, changes: changes,
                       ignored: ignored))
    }
}
