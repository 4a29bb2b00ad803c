// `nfcscope stats`: counts only. It runs the link layer (CRC verdicts, block
// types) and ISO-DEP reassembly to count exchanges, but never parses APDUs.

public final class StatsCollector: DecodeSink {
    public struct Counts: Sendable {
        /// Frames per technology (index: Tech.rawValue) and direction (0 reader, 1 card, 2 none).
        /// Flat: index Tech.rawValue * 3 + direction.
        public var frames = [Int](repeating: 0, count: Tech.allCases.count * 3)

        public func frames(_ tech: Tech) -> (reader: Int, card: Int, none: Int) {
            let i = Int(tech.rawValue) * 3
            return (frames[i], frames[i + 1], frames[i + 2])
        }
        public var total = 0
        public var fieldOn = 0
        public var fieldOff = 0
        public var crcOK = 0
        public var crcBad = 0
        public var errors = 0
        public var exchanges = 0
        public var exchangesWithoutResponse = 0
        public var bytes = 0
        public var firstTime: Int64?
        public var lastTime: Int64 = 0
        public var problems = 0
    }

    @exclusivity(unchecked) public private(set) var files: [(path: String, counts: Counts)] = []
    @exclusivity(unchecked) private var current = Counts()
    /// The per-technology, per-direction frame counts of the input being read, moved
    /// into `current.frames` at its end: counting straight into that array checked
    /// its uniqueness (a runtime call) on every frame.
    @exclusivity(unchecked) private var tally = TechDirectionTally()

    public init() {}

    public func begin(_ input: InputDescription) {
        current = Counts()
        tally = TechDirectionTally()
    }

    // Inlined into the per-frame loop: a call would copy the whole frame to count it.
    @inline(__always)
    public func frame(_ frame: Frame) {
        current.total &+= 1
        if let event = frame.event {
            if event == .fieldOn { current.fieldOn &+= 1 } else { current.fieldOff &+= 1 }
        } else {
            let d = frame.dir.map { Int($0.rawValue) } ?? 2
            tally.add(Int(frame.tech.rawValue) &* 3 &+ d)
            current.bytes &+= frame.bytes.count
        }
        switch frame.crc {
        case .ok: current.crcOK &+= 1
        case .bad: current.crcBad &+= 1
        case .none: break
        }
        if frame.error != nil { current.errors &+= 1 }
        if current.firstTime == nil { current.firstTime = frame.time }
        current.lastTime = frame.time
    }

    /// Counts runs the link layer and ISO-DEP reassembly only.
    public var depth: DecodeDepth { .link }

    public func record<R: DecodedRecord>(_ record: R) {
        // APDU records arrive instead of bare exchanges when a `--filter` made the
        // decode run the application stages.
        let exchange: ISODEPExchange
        if let bare = record as? ISODEPExchange { exchange = bare }
        else if let apdu = record as? APDUInterpretation { exchange = apdu.exchange }
        else { return }
        current.exchanges += 1
        if exchange.response == nil { current.exchangesWithoutResponse += 1 }
    }

    /// ISO-DEP exchanges of the air arrive counted, not built (`exchangeCounted`): the
    /// same two counts `record(_:)` takes from an `ISODEPExchange` record.
    public static var takesExchangeCounts: Bool { true }

    @inline(__always)
    public func exchangeCounted(withResponse: Bool) {
        current.exchanges += 1
        if !withResponse { current.exchangesWithoutResponse += 1 }
    }

    public func problem(_ problem: InputProblem) {
        current.problems += 1
    }

    public func end(_ input: InputDescription) {
        for i in current.frames.indices { current.frames[i] = tally.count(i) }
        files.append((input.path, current))
    }

    /// The report as text.
    public func write(to out: OutputBuffer, json: Bool) {
        for (path, c) in files {
            let duration = c.lastTime - (c.firstTime ?? 0)
            if json {
                out.ascii("{\"type\":\"stats\",\"file\":\"")
                out.jsonEscaped(path)
                out.ascii("\",\"frames\":")
                out.int(c.total)
                out.ascii(",\"by_tech\":{")
                var firstTech = true
                for tech in Tech.allCases {
                    let row = c.frames(tech)
                    if row.reader + row.card + row.none == 0 { continue }
                    if !firstTech { out.byte(0x2C) }
                    firstTech = false
                    out.byte(0x22); out.ascii(tech.jsonName); out.ascii("\":{\"reader\":")
                    out.int(row.reader); out.ascii(",\"card\":"); out.int(row.card)
                    out.ascii(",\"unknown\":"); out.int(row.none); out.byte(0x7D)
                }
                out.ascii("},\"field_on\":"); out.int(c.fieldOn)
                out.ascii(",\"field_off\":"); out.int(c.fieldOff)
                out.ascii(",\"crc_ok\":"); out.int(c.crcOK)
                out.ascii(",\"crc_bad\":"); out.int(c.crcBad)
                out.ascii(",\"errors\":"); out.int(c.errors + c.problems)
                out.ascii(",\"apdus\":"); out.int(c.exchanges)
                out.ascii(",\"apdus_without_response\":"); out.int(c.exchangesWithoutResponse)
                out.ascii(",\"bytes\":"); out.int(c.bytes)
                out.ascii(",\"duration\":"); out.fixed(duration / 1000, digits: 6)
                out.ascii("}\n")
            } else {
                out.string(path); out.ascii("\n")
                out.ascii("  frames          "); out.int(c.total); out.ascii("\n")
                for tech in Tech.allCases {
                    let row = c.frames(tech)
                    if row.reader + row.card + row.none == 0 { continue }
                    out.ascii("  ")
                    let start = out.position
                    out.ascii(tech.jsonName)
                    out.pad(toColumn: 16, lineStart: start)
                    out.int(row.reader); out.ascii(" reader, "); out.int(row.card); out.ascii(" card")
                    if row.none > 0 { out.ascii(", "); out.int(row.none); out.ascii(" without direction") }
                    out.ascii("\n")
                }
                out.ascii("  field events    "); out.int(c.fieldOn); out.ascii(" on, ")
                out.int(c.fieldOff); out.ascii(" off\n")
                out.ascii("  crc             "); out.int(c.crcOK); out.ascii(" ok, ")
                out.int(c.crcBad); out.ascii(" bad\n")
                out.ascii("  apdus           "); out.int(c.exchanges)
                if c.exchangesWithoutResponse > 0 {
                    out.ascii(" ("); out.int(c.exchangesWithoutResponse); out.ascii(" without response)")
                }
                out.ascii("\n")
                out.ascii("  errors          "); out.int(c.errors + c.problems); out.ascii("\n")
                out.ascii("  duration        "); out.fixed(duration / 1000, digits: 6); out.ascii(" s\n")
            }
        }
    }
}

/// Frame counts by `Tech.rawValue * 3 + direction` (0 reader, 1 card, 2 none) in a
/// fixed-size inline array rather than an `Array`, so counting a frame is one
/// increment at its index with no uniqueness check (a switch over fifteen stored
/// properties, as before, cost a jump table a frame). An index outside the table
/// counts nowhere.
struct TechDirectionTally {
    /// Cells of the table (five technologies times three directions).
    static let cells = 15

    var counts = InlineArray<15, Int>(repeating: 0)

    @inline(__always)
    mutating func add(_ i: Int) {
        guard UInt(bitPattern: i) < UInt(Self.cells) else { return }
        counts[i] &+= 1
    }

    func count(_ i: Int) -> Int {
        guard i >= 0, i < Self.cells else { return 0 }
        return counts[i]
    }
}
