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
            current.bytes += frame.bytes.count
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

/// Frame counts by `Tech.rawValue * 3 + direction` (0 reader, 1 card, 2 none) in
/// stored properties rather than an array, so counting a frame is one switch and one
/// increment with no uniqueness check. An index outside the table counts nowhere.
struct TechDirectionTally {
    var c0 = 0, c1 = 0, c2 = 0, c3 = 0, c4 = 0, c5 = 0, c6 = 0, c7 = 0
    var c8 = 0, c9 = 0, c10 = 0, c11 = 0, c12 = 0, c13 = 0, c14 = 0

    /// Cells of the table (five technologies times three directions).
    static let cells = 15

    @inline(__always)
    mutating func add(_ i: Int) {
        switch i {
        case 0: c0 &+= 1
        case 1: c1 &+= 1
        case 2: c2 &+= 1
        case 3: c3 &+= 1
        case 4: c4 &+= 1
        case 5: c5 &+= 1
        case 6: c6 &+= 1
        case 7: c7 &+= 1
        case 8: c8 &+= 1
        case 9: c9 &+= 1
        case 10: c10 &+= 1
        case 11: c11 &+= 1
        case 12: c12 &+= 1
        case 13: c13 &+= 1
        case 14: c14 &+= 1
        default: break
        }
    }

    func count(_ i: Int) -> Int {
        switch i {
        case 0: c0
        case 1: c1
        case 2: c2
        case 3: c3
        case 4: c4
        case 5: c5
        case 6: c6
        case 7: c7
        case 8: c8
        case 9: c9
        case 10: c10
        case 11: c11
        case 12: c12
        case 13: c13
        case 14: c14
        default: 0
        }
    }
}
