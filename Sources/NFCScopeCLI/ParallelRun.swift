// `-j N`: several input files decoded at once, one worker thread per job, the output
// written in input order and byte for byte what one job writes.
//
// A worker decodes a whole file with its own pipeline and writers into a buffer of its
// own and hands the output on in chunks of about `chunkBytes`. The worker of the "head"
// file (the first one not yet written out completely) writes its chunks to standard
// output itself while nothing of that file waits to be written, and takes the same chunk
// back to fill again: as with one job, no other thread is woken, and the chunk stays in
// the core's cache. Everything else (error lines, and the chunks a file made before it
// became the head) the calling thread writes, in order, then moves on to the next file. Files further on keep their chunks in memory,
// up to `memoryCap` bytes over all files; beyond that their chunks go to an unlinked
// temporary file, one per input, read back in its turn and then reused by a later input
// (writing over pages already in the page cache is a copy; new pages cost more), up to
// `spillCap` bytes over all files. When no temporary file can be made, or the files hold
// `spillCap` bytes, the worker waits for its file's turn instead. The head file itself may get
// `headCap` bytes ahead of the writer (a slow reader of the output slows the workers
// down instead of filling memory). Memory is thus the workers' own working sets plus
// these caps, whatever the sizes of the files.
//
// The writers are per file already (each starts over at `begin`), so decoding a file
// into its own writer gives exactly the bytes the shared writer of a one-job run gives.
// Each file goes through the library's `StandardDecode` as a one-job run does (same
// sinks, same filter, same text layout); only --redact stays on one thread, since
// what it learns in one file masks the files after it.
import NFCScope

public enum ParallelRun {
    /// Largest `-j` accepted.
    public static let maxJobs = 256

    /// How much output is held back, in bytes.
    struct Limits {
        /// A worker hands its output on in chunks of about this size.
        var chunkBytes = 256 << 10
        /// Chunks of files not yet at the head, in memory over all files. Equal files
        /// decoded at once leave the next file's whole output waiting for the head: 28 MB
        /// of JSON Lines for a 2 MiB EMV capture. Under 16 MiB, half of it went through a
        /// temporary file, and the kernel's copies in and out took ~0.07 s of CPU in a 1 s
        /// `-j 2` run of 100 such files (BENCHMARKS.md, session 43). 32 MiB took `-j 2`
        /// text over those files to 66-70 MB of peak RSS, past the 64 MB the tool keeps
        /// to; 24 MiB holds them within 61 MB, and the same CPU time was measured for
        /// JSON Lines at 24 and 32 MiB (session 44).
        var memoryCap = 24 << 20
        /// Chunks of the head file not yet written.
        var headCap = 4 << 20
        /// Temporary files kept for reuse once their input is written out, and the
        /// bytes each keeps (the rest of a larger one is given back).
        var spillPool = 4
        var spillKeep = 64 << 20
        /// Bytes in temporary files not yet written out, over all files. Beyond it a
        /// worker waits for its file's turn: without it, two 1 GiB captures to text at
        /// `-j 2` parked the second one's whole output, 11.6 GB, in $TMPDIR (in memory
        /// where /tmp is a tmpfs) (BENCHMARKS.md, session 29).
        var spillCap = 256 << 20
    }

    /// `-j`'s default: the cores this process may run on.
    package static var defaultJobs: Int { WorkerThreads.availableCores }

    /// Runs `job` for inputs `0..<count` on `jobs` worker threads and writes what they
    /// deliver to `out` and `errorLine` in input order, from the calling thread. Returns
    /// the largest status a job returned.
    static func run(count: Int, jobs: Int, out: OutputBuffer, errorLine: (String) -> Void, limits: Limits = Limits(),
                    job: @escaping (Int, ChunkTarget) -> Int32) -> Int32 {
        run(count: count, jobs: jobs, out: out, errorLine: errorLine, limits: limits, perThread: {}) { index, target, _ in
            job(index, target)
        }
    }

    /// `run`, where each worker thread makes its own `State` (once, before its first
    /// input) and passes it to every job it runs.
    static func run<State>(count: Int, jobs: Int, out: OutputBuffer, errorLine: (String) -> Void, limits: Limits = Limits(),
                           perThread: @escaping () -> State, afterwards: (OrderedOutput) -> Void = { _ in },
                           job: @escaping (Int, ChunkTarget, State) -> Int32) -> Int32 {
        let order = OrderedOutput(count: count, limits: limits, out: out)
        let chunkBytes = out.flushEachRecord ? 1 : limits.chunkBytes
        var status: Int32 = 0
        WorkerThreads.keepFreedMemory()
        WorkerThreads.run(count: max(1, min(jobs, count)), {
            var state: State?
            // One target a thread, serving each input the thread takes in turn: its buffer's
            // chunk, and the writer a job keeps on it (`decode`), are made once a thread.
            let target = ChunkTarget(order: order, chunkBytes: chunkBytes)
            while let index = order.claim() {
                target.index = index
                let made: State
                if let state { made = state } else { made = perThread(); state = made }
                let status = job(index, target, made)
                target.deliver()
                order.finish(index, status: status)
            }
        }, meanwhile: {
            status = order.drain(errorLine: errorLine)
        })
        afterwards(order)
        return status
    }
}

/// One worker's output on its way, input by input: what the job writes into `out` is
/// handed on in chunks (by `out` itself when a record ends with a chunk's worth written,
/// `deliver` at the end and while waiting for input), error lines as they come. A chunk
/// is the buffer's own storage, swapped for one already written out.
final class ChunkTarget {
    let out: OutputBuffer
    private let order: OrderedOutput
    /// The input whose output `out` holds now (set before each job: the worker's jobs
    /// run one after another, and each ends with `deliver`).
    var index = 0
    /// A chunk written out, whose storage the next chunk takes.
    private var spare: OutputChunk?

    init(order: OrderedOutput, chunkBytes: Int) {
        self.order = order
        // Room for a chunk and the record that fills it, so it seldom grows.
        out = OutputBuffer(chunkCapacity: chunkBytes + chunkBytes / 4, handOnAt: chunkBytes)
        // Handed on when a record ends with a chunk's worth written: the buffer checks
        // that in `recordDone`, which every writer calls after each record anyway, so
        // a frame costs nothing more than in a one-job run (a per-frame closure call,
        // its context retained and released, cost about 85 instructions a frame).
        out.onChunkFull = { [unowned self] in self.deliver() }
    }

    func deliver() {
        guard out.position > 0 else { return }
        spare = order.put(index, out.takeChunk(reusing: spare))
    }

    func report(_ line: String) {
        order.putError(index, Array(line.utf8))
    }
}

/// The chunks of every input until their turn comes, under one lock.
final class OrderedOutput: @unchecked Sendable {
    private enum Piece {
        case chunk(OutputChunk)
        case error([UInt8])
        case spilled(offset: Int, count: Int, isError: Bool)

        var isError: Bool {
            switch self {
            case .chunk: false
            case .error: true
            case .spilled(_, _, let isError): isError
            }
        }
    }

    private struct Slot {
        var pieces: [Piece] = []
        /// Bytes of `pieces` held in memory.
        var held = 0
        var done = false
        var status: Int32 = 0
        /// Chunks beyond the memory cap, made when first needed.
        var spill: SpillFile?
        var spillFailed = false
    }

    /// Workers wait on `roomCondition` (for the writer to take chunks), the writer on
    /// `writerCondition` (for its head file's chunks or end): each is woken only by what
    /// it waits for, not by every chunk of every file.
    private let monitor = Monitor(conditions: 2)
    private static let roomCondition = 0
    private static let writerCondition = 1
    private let limits: ParallelRun.Limits
    private var slots: [Slot]
    private var head = 0
    /// The calling thread is writing pieces of the head it took out of its slot: the
    /// head's worker must queue its chunks behind them, not write them itself.
    private var draining = false
    /// Standard output, written by the calling thread, or by the head's worker itself.
    private let out: OutputBuffer
    private var nextInput = 0
    /// Bytes held in memory over all slots.
    private var held = 0
    /// Chunks written out (or parked in a temporary file), for the workers to reuse:
    /// as much memory as the caps let be held, so that a worker seldom allocates a chunk
    /// (and faults in its pages) that a chunk freed a moment before could have been.
    /// Chunks in use and spares together never hold more than the most ever in use at once.
    private var spares: [OutputChunk] = []
    /// Temporary files of inputs already written out, for the next input to park in.
    private var spillPool: [SpillFile] = []
    private var spareMemory = 0
    /// Bytes in temporary files not yet written out (counted against `spillCap`), and
    /// the most there were at once.
    private var parked = 0
    private(set) var mostParked = 0
    /// The most bytes held in memory at once (`held`, for the tests).
    private(set) var mostHeld = 0
    private var maxSpareMemory: Int { limits.memoryCap + limits.headCap }

    init(count: Int, limits: ParallelRun.Limits, out: OutputBuffer) {
        slots = Array(repeating: Slot(), count: count)
        self.limits = limits
        self.out = out
    }

    /// The next input to decode, nil when all are taken (or Ctrl-C was pressed: the
    /// inputs not started are then skipped, as a one-job run stops after its file).
    func claim() -> Int? {
        monitor.lock()
        defer { monitor.unlock() }
        if Interruption.requested {
            while nextInput < slots.count {
                slots[nextInput].done = true
                nextInput += 1
            }
            monitor.signal(Self.writerCondition)
        }
        guard nextInput < slots.count else { return nil }
        nextInput += 1
        return nextInput - 1
    }

    /// Queues a chunk of input `index`'s output; returns a chunk to reuse, if any.
    /// What counts against the caps is the chunk's memory, not the bytes written in it:
    /// a chunk whose buffer grew for a long record holds up to four times its bytes,
    /// and text records, being longer, made `-j 2` text hold 100 MB under 20 MiB of caps.
    func put(_ index: Int, _ chunk: OutputChunk) -> OutputChunk? {
        monitor.lock()
        if index == head && !draining && slots[index].pieces.isEmpty {
            // Everything before this chunk is written, and nothing else writes until this
            // worker puts again or finishes (the head moves on only once it is done).
            monitor.unlock()
            out.append(chunk)
            out.recordDone()
            return chunk
        }
        monitor.unlock()
        return put(index, .chunk(chunk), count: chunk.memory, wantsSpare: true)
    }

    func putError(_ index: Int, _ line: [UInt8]) {
        _ = put(index, .error(line), count: line.count, wantsSpare: false)
    }

    private func put(_ index: Int, _ piece: Piece, count n: Int, wantsSpare: Bool) -> OutputChunk? {
        monitor.lock()
        defer { monitor.unlock() }
        while true {
            if index == head {
                if slots[index].held == 0 || slots[index].held + n <= limits.headCap { break }
            } else {
                if held + n <= limits.memoryCap { break }
                if !slots[index].spillFailed && parked + n <= limits.spillCap {
                    if park(index, piece) { return wantsSpare ? popSpare() : nil }
                    // The lock was let go meanwhile: look again before waiting.
                    continue
                }
            }
            monitor.wait(Self.roomCondition)
        }
        slots[index].pieces.append(piece)
        slots[index].held += n
        held += n
        mostHeld = max(mostHeld, held)
        if index == head { monitor.signal(Self.writerCondition) }
        return wantsSpare ? popSpare() : nil
    }

    /// With the lock held.
    private func popSpare() -> OutputChunk? {
        guard let chunk = spares.popLast() else { return nil }
        spareMemory -= chunk.memory
        return chunk
    }

    /// With the lock held: keeps `chunk` for reuse if the spares have room, else it is freed.
    private func keepSpare(_ chunk: OutputChunk) {
        guard spareMemory + chunk.memory <= maxSpareMemory else { return }
        spares.append(chunk)
        spareMemory += chunk.memory
    }

    /// Appends `piece` to the input's temporary file; false when there is none or
    /// writing failed (the worker then waits for its turn). Called with the lock held,
    /// and holds it again on return, but writes without it: only this input's worker
    /// appends to its file, and the writer reads only what `pieces` lists, so the head's
    /// worker and the writer go on meanwhile. The file comes from `spillPool` (files of
    /// inputs written out, whose pages are in the page cache already) or is made anew.
    private func park(_ index: Int, _ piece: Piece) -> Bool {
        let file: SpillFile
        if let own = slots[index].spill {
            file = own
        } else if let pooled = spillPool.popLast() {
            file = pooled
            slots[index].spill = file
        } else {
            monitor.unlock()
            let made = SpillFile()
            monitor.lock()
            guard let made else {
                slots[index].spillFailed = true
                return false
            }
            file = made
            slots[index].spill = file
        }
        // The bytes are counted before the lock is let go: two workers that both found
        // room under `spillCap` must not both take it (CI once saw 1,500 parked under a
        // 1,000 cap). The caller looked with the chunk's memory, which is at least this.
        let count: Int
        switch piece {
        case .chunk(let chunk): count = chunk.count
        case .error(let line): count = line.count
        case .spilled: count = 0
        }
        guard parked + count <= limits.spillCap else {
            // Another worker took the room while the file was made: look again.
            return false
        }
        parked += count
        mostParked = max(mostParked, parked)
        monitor.unlock()
        let offset: Int?
        switch piece {
        case .chunk(let chunk): offset = file.append(chunk)
        case .error(let line): offset = file.append(line)
        case .spilled: offset = nil
        }
        monitor.lock()
        guard let offset else {
            parked -= count
            slots[index].spillFailed = true
            monitor.broadcast(Self.roomCondition)
            return false
        }
        if case .chunk(let chunk) = piece { keepSpare(chunk) }
        slots[index].pieces.append(.spilled(offset: offset, count: count, isError: piece.isError))
        if index == head { monitor.signal(Self.writerCondition) }
        return true
    }

    func finish(_ index: Int, status: Int32) {
        monitor.lock()
        slots[index].done = true
        slots[index].status = status
        if index == head { monitor.signal(Self.writerCondition) }
        monitor.unlock()
    }

    /// Writes every input's chunks in input order as they come; returns once all inputs
    /// are done, with the largest status.
    func drain(errorLine: (String) -> Void) -> Int32 {
        var status: Int32 = 0
        var written: [OutputChunk] = []
        /// Where output parked in a temporary file is read back into.
        var readBack: OutputChunk?
        /// Bytes of the pieces being written that came from a temporary file.
        var unparked = 0
        monitor.lock()
        while head < slots.count {
            if !slots[head].pieces.isEmpty {
                let pieces = slots[head].pieces
                let spill = slots[head].spill
                slots[head].pieces = []
                // The pieces stay counted in `held` until they are written: other files'
                // chunks filling the room meanwhile took `-j 2` text over 100 files to
                // twice the cap and 77 MB of peak RSS (session 44). The head's own cap
                // starts over now.
                let inFlight = slots[head].held
                slots[head].held = 0
                draining = true
                monitor.broadcast(Self.roomCondition)
                monitor.unlock()
                for piece in pieces {
                    switch piece {
                    case .chunk(let chunk):
                        out.append(chunk)
                        out.recordDone()
                        written.append(chunk)
                    case .error(let line):
                        errorLine(String(decoding: line, as: UTF8.self))
                    case .spilled(let offset, let count, let isError):
                        unparked += count
                        let ok: Bool
                        if isError {
                            // An error line is read back whole.
                            ok = spill?.read(offset: offset, count: count, piece: count) {
                                errorLine(String(decoding: $0, as: UTF8.self))
                            } ?? false
                        } else if let spill {
                            // Copied by the kernel where the output takes it, else read back.
                            let sent = out.appendSpilled(spill, offset: offset, count: count)
                            if sent < count {
                                let chunk = readBack ?? OutputChunk(capacity: limits.chunkBytes)
                                readBack = chunk
                                ok = spill.read(offset: offset + sent, count: count - sent, into: chunk) {
                                    out.append($0)
                                    out.recordDone()
                                }
                            } else {
                                out.recordDone()
                                ok = true
                            }
                        } else {
                            ok = false
                        }
                        if !ok {
                            errorLine("reading back the output parked in a temporary file failed")
                            status = max(status, CommandLineTool.exitUnreadable)
                        }
                    }
                }
                monitor.lock()
                draining = false
                held -= inFlight
                // Room in memory and in the temporary files (`spillCap`) for waiting workers.
                parked -= unparked
                unparked = 0
                monitor.broadcast(Self.roomCondition)
                // The chunks written out go back to the workers (as many as `keepSpare` keeps).
                for chunk in written { keepSpare(chunk) }
                written.removeAll(keepingCapacity: true)
                continue
            }
            if slots[head].done {
                status = max(status, slots[head].status)
                // Its worker is done and every piece is written: the file serves another input.
                if let file = slots[head].spill, spillPool.count < limits.spillPool, file.reuse(keep: limits.spillKeep) {
                    spillPool.append(file)
                }
                slots[head].spill = nil
                head += 1
                // The new head's worker may go on now (its own cap, `headCap`).
                monitor.broadcast(Self.roomCondition)
                continue
            }
            monitor.wait(Self.writerCondition)
        }
        monitor.unlock()
        return status
    }
}

extension ParallelRun {
    /// What each file is decoded into.
    enum Kind {
        /// `decode` and `stats`.
        case standard(StandardDecode.Output)
        /// `summary`, in this layout.
        case summary(TextLayout)
    }

    /// The jobs `options` ask for when more than one would run: several files, `-j`
    /// (or the cores) above 1, and no `--redact`; nil for the one-job loop.
    static func jobs(_ options: Options) -> Int? {
        // One file (or stdin) runs on this thread whatever -j says: the cores are not
        // counted then (reading /proc/self/status cost ~93 K instructions at every start).
        guard options.files.count > 1, !options.redact, [.decode, .stats, .summary].contains(options.subcommand) else { return nil }
        let jobs = min(options.jobs ?? defaultJobs, options.files.count)
        return jobs > 1 ? jobs : nil
    }

    /// `decode`, `stats` and `summary` of several files on `jobs` threads: each file
    /// through `StandardDecode` into its own writer (or counter), with the hooks of the
    /// one-job loop. Returns the largest status of the files. `workerRegistry`: each
    /// worker thread decodes with a registry of its own made by it (else all share
    /// `registry`): threads that retain and release the same entries and tables make
    /// their cores take turns at the reference counts' cache lines.
    static func decode(_ options: Options, registry: Registry, workerRegistry: (@Sendable () -> Registry)? = nil,
                       kind: Kind, jobs: Int, shownOnOutput: Bool,
                       out: OutputBuffer, errorLine: (String) -> Void, limits: Limits = Limits()) -> Int32 {
        let files = options.files
        return run(count: files.count, jobs: jobs, out: out, errorLine: errorLine, limits: limits,
                   perThread: { DecodeThread(registry: workerRegistry?() ?? registry) }) { index, target, thread in
            let registry = thread.registry
            var status = CommandLineTool.exitOK
            var hooks = CommandLineTool.fileHooks(options, report: shownOnOutput ? { _ in } : target.report,
                                                  errorLine: target.report,
                                                  raise: { status = max(status, $0) })
            // No per-frame `tick`: the job's buffer hands its chunks on itself when a
            // record ends with the chunk full (`ChunkTarget.init`), and `stats` writes
            // its one record when the file ends.
            hooks.whileWaiting = { target.deliver() }
            // A filter caches what it worked out: one per thread.
            let filter = options.view.recordFilter()
            switch kind {
            case .standard(let output):
                // The thread's writer, on its target's buffer, serves each of its files.
                let worker = thread.worker ?? StandardDecode.Worker(output: output, registry: registry, out: target.out)
                thread.worker = worker
                worker.run(files: [files[index]], inputFormat: options.inputFormat, tech: options.tech,
                           filter: filter, hooks: hooks)
            case .summary(let layout):
                let writer = SummaryWriter(output: target.out, registry: registry, filter: filter,
                                           width: layout.width, palette: layout.palette)
                StandardDecode.run(files: [files[index]], inputFormat: options.inputFormat, tech: options.tech,
                                   registry: registry, out: target.out, hooks: hooks, into: writer)
            }
            return status
        }
    }
}

/// What a worker thread of `ParallelRun.decode` keeps from one file to the next.
final class DecodeThread {
    let registry: Registry
    /// Made for the thread's first file.
    var worker: StandardDecode.Worker?

    init(registry: Registry) { self.registry = registry }
}

extension CommandLineTool {
    /// What `decode`, `stats` and `summary` do around each file, on one thread or
    /// several: the `--input` mismatch warning before it; after it, its status
    /// (`raise`) and the line saying why no frame was found. `report` gets each
    /// file-level problem.
    static func fileHooks(_ options: Options, report: @escaping (String) -> Void, errorLine: @escaping (String) -> Void,
                          raise: @escaping (Int32) -> Void) -> StandardDecode.Hooks {
        var hooks = StandardDecode.Hooks(report: report)
        hooks.beforeFile = { file in
            if let forced = options.inputFormat, let warning = InputMessages.mismatch(file, forced: forced) {
                errorLine(warning)
            }
        }
        hooks.afterFile = { file, outcome, format in
            if outcome.unreadable {
                raise(exitUnreadable)
            } else if outcome.hadErrors {
                raise(exitInputErrors)
            }
            if outcome.frames == 0, !outcome.unreadable, !Interruption.requested,
               let message = InputMessages.noFrames(file, format: format, forced: options.inputFormat) {
                errorLine(message.text)
                if message.unreadable { raise(exitUnreadable) }
            }
        }
        return hooks
    }
}
