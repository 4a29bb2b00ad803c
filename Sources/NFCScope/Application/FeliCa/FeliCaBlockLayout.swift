// Applies a plugin-declared block layout (docs/plugins.md) to a 16-byte block:
// each field becomes a value, written as a JSON object member or as `name=value`
// text. A field that does not fit the bytes at hand is left out rather than guessed.

enum FeliCaFieldValue {
    case int(Int)
    case hex(ByteView)
    case text(ByteView)
    case date(year: Int, month: Int, day: Int)
    case time(hour: Int, minute: Int)
    case dateTime(year: Int, month: Int, day: Int, seconds: Int)
    case station(line: Int, station: Int)
    case named(Int, String?)
    case checksum(Int, ok: Bool)
    /// A value that needs a block the layout cannot see (the last block's delta).
    case none
}

enum FeliCaBlockLayout {
    static func value(_ field: BlockField, block: ByteView, next: ByteView?, registry: Registry) -> FeliCaFieldValue? {
        value(FieldShape(offset: field.offset, size: field.size, type: field.type, bitHigh: field.bitHigh,
                         bitLow: field.bitLow, hasTable: field.table != nil),
              block: block, next: next) { code in field.table.flatMap { registry.code($0, code) } }
    }

    /// Where a field lies and how its bytes read (a `BlockField` without its names).
    struct FieldShape {
        var offset: Int
        var size: Int
        var type: BlockField.FieldType
        var bitHigh: Int
        var bitLow: Int
        var hasTable: Bool
    }

    /// The value of a field; `name` gives the code table's name of an enum or bits code.
    @inline(__always)
    static func value(_ field: FieldShape, block: ByteView, next: ByteView?, name: (Int) -> String?) -> FeliCaFieldValue? {
        guard let bytes = block.slice(field.offset, field.size) else { return nil }
        switch field.type {
        case .uintLE: return field.size <= 7 ? .int(unsigned(bytes, littleEndian: true)) : .hex(bytes)
        case .uintBE: return field.size <= 7 ? .int(unsigned(bytes, littleEndian: false)) : .hex(bytes)
        case .sintLE, .sintBE:
            guard field.size <= 7 else { return .hex(bytes) }
            let u = unsigned(bytes, littleEndian: field.type == .sintLE)
            let bits = 8 * field.size
            return .int(u >= 1 << (bits - 1) ? u - (1 << bits) : u)
        case .bcd:
            var v = 0
            for b in bytes {
                guard b >> 4 <= 9, b & 0x0F <= 9, v < Int.max / 100 else { return .hex(bytes) }
                v = v * 100 + Int(b >> 4) * 10 + Int(b & 0x0F)
            }
            return .int(v)
        case .hex: return .hex(bytes)
        case .ascii: return .text(bytes)
        case .enumeration:
            let code = unsigned(bytes.prefix(7), littleEndian: false)
            return .named(code, field.hasTable ? name(code) : nil)
        case .bits:
            let whole = unsigned(bytes, littleEndian: false)
            let width = field.bitHigh - field.bitLow + 1
            let v = (whole >> field.bitLow) & ((1 << width) - 1)
            if field.hasTable { return .named(v, name(v)) }
            return .int(v)
        case .date:
            let v = unsigned(bytes, littleEndian: false)
            return .date(year: 2000 + (v >> 9), month: (v >> 5) & 0x0F, day: v & 0x1F)
        case .station:
            return .station(line: Int(bytes.byte(0) ?? 0), station: Int(bytes.byte(1) ?? 0))
        case .bcdTime:
            let h = Int(bytes.byte(0) ?? 0), m = Int(bytes.byte(1) ?? 0)
            guard h >> 4 <= 9, h & 15 <= 9, m >> 4 <= 9, m & 15 <= 9 else { return .hex(bytes) }
            return .time(hour: (h >> 4) * 10 + h & 15, minute: (m >> 4) * 10 + m & 15)
        case .packedTime:
            let v = unsigned(bytes, littleEndian: false)
            return .time(hour: v >> 11, minute: (v >> 5) & 0x3F)
        case .daySeconds:
            let v = unsigned(bytes, littleEndian: false)
            let (y, m, d) = civilDate(daysSince2000: v >> 17)
            return .dateTime(year: y, month: m, day: d, seconds: v & 0x1FFFF)
        case .deltaLE, .deltaBE:
            guard field.size <= 7, let other = next?.slice(field.offset, field.size) else { return FeliCaFieldValue.none }
            let le = field.type == .deltaLE
            return .int(unsigned(other, littleEndian: le) - unsigned(bytes, littleEndian: le))
        case .checksum:
            var sum = 0
            for b in block.prefix(field.offset) { sum += Int(b) }
            let stored = unsigned(bytes, littleEndian: false)
            return .checksum(stored, ok: sum & 0xFFFF == stored)
        }
    }

    /// The layout of a block (chosen by its bytes when the service has variants), and
    /// the next block of the read for delta fields: none when that block is an empty
    /// slot, since a value computed against a slot never written would be invented.
    static func layout(_ registry: Registry, system: UInt16?, code: UInt16, block: Int, data: ByteView,
                       next: ByteView?) -> (FeliCaServiceEntry, ByteView?)? {
        guard let entry = registry.feliCaLayout(system: system, code: code, block: block, data: data) else { return nil }
        guard let next, !entry.empty else { return (entry, nil) }
        let nextEntry = registry.feliCaLayout(system: system, code: code, block: block + 1, data: next)
        return (entry, nextEntry?.empty == true ? nil : next)
    }

    /// `"fields":{...}` members, each field once, in layout order.
    static func writeJSON(_ entry: FeliCaServiceEntry, block: ByteView, next: ByteView?, registry: Registry,
                          to out: OutputBuffer) {
        out.byte(0x7B)
        var first = true
        for field in entry.fields {
            guard let v = value(field, block: block, next: next, registry: registry) else { continue }
            if !first { out.byte(0x2C) }
            first = false
            out.byte(0x22)
            out.jsonEscaped(field.name)
            out.ascii("\":")
            writeJSONValue(v, out)
        }
        out.byte(0x7D)
    }

    /// The layout chosen as `layout(...)` chooses it, with its JSON pieces. `memo` keeps
    /// the last lookup: the next block looked up here for its deltas is the block the
    /// following call asks for.
    static func compiledLayout(_ index: FeliCaLayoutIndex, system: UInt16?, code: UInt16, block: Int, data: ByteView,
                               next: ByteView?, memo: inout FeliCaLayoutMemo) -> (FeliCaCompiledLayout, ByteView?)? {
        guard let layout = memo.layout(index, system: system, code: code, block: block, data: data) else { return nil }
        guard let next, !layout.empty else { return (layout, nil) }
        let nextLayout = memo.layout(index, system: system, code: code, block: block + 1, data: next)
        return (layout, nextLayout?.empty == true ? nil : next)
    }

    /// `writeJSON(...)` from a compiled layout: names copied as encoded, a named code's
    /// whole value found by binary search, each value written as it is read (no
    /// `FeliCaFieldValue` made and destroyed per field), all into one reservation of
    /// `fieldsBound` bytes. Same bytes (FeliCaLayoutIndexTests).
    static func writeJSON(_ layout: FeliCaCompiledLayout, block: ByteView, next: ByteView?, to out: OutputBuffer) {
        out.withReserved(layout.fieldsBound) { c in writeFields(layout, block: block, next: next, &c) }
    }

    /// The `{...}` of `writeJSON(...)` into a cursor with at least `fieldsBound` bytes of
    /// room. A block of 16 bytes (every FeliCa block read off the air) whose layout lies
    /// within 16 bytes takes `writeSixteen`; anything else the field-by-field loop.
    @inline(__always)
    static func writeFields(_ layout: FeliCaCompiledLayout, block: ByteView, next: ByteView?,
                            _ c: inout OutputCursor) {
        if block.count == 16, let sixteen = layout.sixteen, let h = block.u64le(0), let l = block.u64le(8) {
            writeSixteen(layout, sixteen, block: block, high: h.byteSwapped, low: l.byteSwapped, next: next,
                         nextWhole: sixteenBits(next), &c)
            return
        }
        writeFieldsGeneral(layout, block: block, next: next, &c)
    }

    /// A next block of 16 bytes read as 128 bits, big-endian (its delta fields' values);
    /// nil for no next block or one of another size.
    @inline(__always)
    static func sixteenBits(_ next: ByteView?) -> UInt128? {
        guard let next, next.count == 16, let h = next.u64le(0), let l = next.u64le(8) else { return nil }
        return UInt128(h.byteSwapped) &<< 64 | UInt128(l.byteSwapped)
    }

    /// The field-by-field loop (fields may not fit the block).
    static func writeFieldsGeneral(_ layout: FeliCaCompiledLayout, block: ByteView, next: ByteView?,
                                   _ c: inout OutputCursor) {
        let pool = layout.poolView
        c.byte(0x7B)
        var first = true
        for field in layout.fields {
            // A field that does not fit the bytes at hand is left out.
            guard let bytes = block.slice(field.offset, field.size) else { continue }
            if !first { c.byte(0x2C) }
            first = false
            c.bytes(pool.slice(field.member.lowerBound, field.member.count) ?? ByteView())
            writeJSONValue(field, bytes, block: block, next: next, layout: layout, pool: pool, &c)
        }
        c.byte(0x7D)
    }

    /// A 16-byte block (`high`, `low`: its two halves big-endian) whose every field fits:
    /// each field's value of 1 to 8 bytes is cut out of the 128 bits by one shift and
    /// mask, and its comma, name and the value's opening literal (or, for a code of
    /// 0...255 in its table, its whole value) are one copy. Writes what
    /// `writeFieldsGeneral` writes (FeliCaBlockWriterTests).
    private static func writeSixteen(_ layout: FeliCaCompiledLayout, _ fields: [FeliCaCompiledLayout.SixteenField],
                                     block: ByteView, high: UInt64, low: UInt64, next: ByteView?,
                                     nextWhole: UInt128?, _ c: inout OutputCursor) {
        let whole = UInt128(high) &<< 64 | UInt128(low)
        // The first field's lead is written without its comma, after the `{`.
        var skip = 1
        c.byte(0x7B)
        for f in fields {
            // Every field writes one lead: the first without its comma.
            let cut = skip
            skip = 0
            @inline(__always) func lead(_ v: ByteView, _ c: inout OutputCursor) {
                c.bytes(cut == 0 ? v : v.suffix(from: 1))
            }
            // The lead as written, for the writes that claim the lead and the value at once.
            @inline(__always) func leadView() -> ByteView { cut == 0 ? f.lead : f.lead.suffix(from: 1) }
            let be = UInt64(truncatingIfNeeded: whole &>> UInt128(truncatingIfNeeded: f.shift)) & f.mask
            let le = f.littleEndian ? be.byteSwapped &>> UInt64(truncatingIfNeeded: 64 &- 8 &* f.size) : be
            let value = Int(truncatingIfNeeded: f.littleEndian ? le : be)
            switch f.kind {
            case .general:
                lead(f.member, &c)
                guard let bytes = block.slice(f.offset, f.size) else { break }
                writeJSONValue(layout.fields[f.field], bytes, block: block, next: next, layout: layout,
                               pool: layout.poolView, &c)
            case .unsigned:
                c.leadInt(leadView(), value)
            case .signed:
                let bits = 8 * f.size
                c.leadInt(leadView(), value >= 1 << (bits - 1) ? value - (1 << bits) : value)
            case .code, .bitsCode, .bits:
                let code: Int
                if f.kind == .code {
                    code = Int(truncatingIfNeeded: f.size <= 7 ? be : be >> 8)
                } else {
                    let width = f.bitHigh - f.bitLow + 1
                    code = (Int(truncatingIfNeeded: be) >> f.bitLow) & ((1 << width) - 1)
                    if f.kind == .bits {
                        c.leadInt(leadView(), code)
                        break
                    }
                }
                if f.named >= 0, code >= 0, code < 256 {
                    let whole = layout.named[f.named &+ code]
                    if whole.count > 0 {
                        lead(whole, &c)
                        break
                    }
                }
                lead(f.member, &c)
                let field = layout.fields[f.field]
                if field.table >= 0, let r = layout.entry(table: field.table, code: code) {
                    c.bytes(layout.poolView.slice(r.lowerBound, r.count) ?? ByteView())
                } else {
                    c.ascii("{\"code\":"); c.int(code)
                    c.ascii(",\"name\":null}")
                }
            case .date:
                let v = Int(truncatingIfNeeded: be)
                // Up to 2 bytes (every FeliCa date): year 2000...2127, one claim with
                // the lead and the closing quote.
                if f.size <= 2 {
                    c.leadIsoDateQuote(leadView(), year: 2000 &+ (v >> 9), month: (v >> 5) & 0x0F, day: v & 0x1F)
                } else {
                    lead(f.lead, &c)
                    date(2000 + (v >> 9), (v >> 5) & 0x0F, v & 0x1F, &c)
                    c.byte(0x22)
                }
            case .packedTime:
                lead(f.lead, &c)
                let v = Int(truncatingIfNeeded: be)
                two(v >> 11, &c); c.byte(0x3A); two((v >> 5) & 0x3F, &c); c.byte(0x22)
            case .daySeconds:
                lead(f.lead, &c)
                let v = Int(truncatingIfNeeded: be)
                let (y, m, d) = civilDate(daysSince2000: v >> 17)
                let s = v & 0x1FFFF
                date(y, m, d, &c)
                c.byte(0x54)
                two(s / 3600, &c); c.byte(0x3A); two(s / 60 % 60, &c); c.byte(0x3A); two(s % 60, &c)
                c.byte(0x22)
            case .station:
                c.leadStation(leadView(),
                              line: Int(truncatingIfNeeded: (be &>> UInt64(truncatingIfNeeded: 8 &* (f.size &- 1))) & 0xFF),
                              station: f.size >= 2
                                ? Int(truncatingIfNeeded: (be &>> UInt64(truncatingIfNeeded: 8 &* (f.size &- 2))) & 0xFF) : 0)
            case .bcdTime:
                lead(f.lead, &c)
                let h = Int(truncatingIfNeeded: (be &>> UInt64(truncatingIfNeeded: 8 &* (f.size &- 1))) & 0xFF)
                let m = f.size >= 2 ? Int(truncatingIfNeeded: (be &>> UInt64(truncatingIfNeeded: 8 &* (f.size &- 2))) & 0xFF) : 0
                guard h >> 4 <= 9, h & 15 <= 9, m >> 4 <= 9, m & 15 <= 9 else {
                    c.hex(block.slice(f.offset, f.size) ?? ByteView()); c.byte(0x22)
                    break
                }
                two((h >> 4) * 10 + h & 15, &c); c.byte(0x3A); two((m >> 4) * 10 + m & 15, &c); c.byte(0x22)
            case .delta:
                if let nextWhole {
                    // The same field of the next block (16 bytes: every field fits), as above.
                    let obe = UInt64(truncatingIfNeeded: nextWhole &>> UInt128(truncatingIfNeeded: f.shift)) & f.mask
                    let ole = f.littleEndian ? obe.byteSwapped &>> UInt64(truncatingIfNeeded: 64 &- 8 &* f.size) : obe
                    c.leadInt(leadView(), Int(truncatingIfNeeded: ole) - value)
                    break
                }
                lead(f.lead, &c)
                guard let other = next?.slice(f.offset, f.size) else { c.ascii("null"); break }
                c.int(unsigned(other, littleEndian: f.littleEndian) - value)
            case .hex:
                // The field's bytes in order are its big-endian value's (1 to 8 bytes).
                c.leadHexBigEndianQuote(leadView(), be, byteCount: f.size)
            }
        }
        c.byte(0x7D)
    }

    @inline(__always)
    private static func two(_ v: Int, _ c: inout OutputCursor) {
        if v < 10 { c.byte(0x30) }
        c.int(v)
    }

    @inline(__always)
    private static func date(_ y: Int, _ m: Int, _ d: Int, _ c: inout OutputCursor) {
        c.int(y); c.byte(0x2D); two(m, &c); c.byte(0x2D); two(d, &c)
    }

    /// The value of one field as `value(...)` + `writeJSONValue(...)` write it.
    @inline(__always)
    private static func writeJSONValue(_ field: FeliCaCompiledLayout.Field, _ bytes: ByteView, block: ByteView,
                                       next: ByteView?, layout: FeliCaCompiledLayout, pool: ByteView,
                                       _ c: inout OutputCursor) {
        func named(_ code: Int, _ c: inout OutputCursor) {
            if field.table >= 0, let r = layout.entry(table: field.table, code: code) {
                c.bytes(pool.slice(r.lowerBound, r.count) ?? ByteView())
                return
            }
            c.ascii("{\"code\":"); c.int(code)
            c.ascii(",\"name\":null}")
        }
        func quotedHex(_ c: inout OutputCursor) { c.byte(0x22); c.hex(bytes); c.byte(0x22) }
        func two(_ v: Int, _ c: inout OutputCursor) {
            if v < 10 { c.byte(0x30) }
            c.int(v)
        }
        func date(_ y: Int, _ m: Int, _ d: Int, _ c: inout OutputCursor) {
            c.int(y); c.byte(0x2D); two(m, &c); c.byte(0x2D); two(d, &c)
        }
        switch field.type {
        case .uintLE, .uintBE:
            if field.size <= 7 { c.int(unsigned(bytes, littleEndian: field.type == .uintLE)) } else { quotedHex(&c) }
        case .sintLE, .sintBE:
            guard field.size <= 7 else { return quotedHex(&c) }
            let u = unsigned(bytes, littleEndian: field.type == .sintLE)
            let bits = 8 * field.size
            c.int(u >= 1 << (bits - 1) ? u - (1 << bits) : u)
        case .bcd:
            var v = 0
            for b in bytes {
                guard b >> 4 <= 9, b & 0x0F <= 9, v < Int.max / 100 else { return quotedHex(&c) }
                v = v * 100 + Int(b >> 4) * 10 + Int(b & 0x0F)
            }
            c.int(v)
        case .hex: quotedHex(&c)
        case .ascii:
            c.byte(0x22)
            for b in bytes { c.byte(b >= 0x20 && b < 0x7F && b != 0x22 && b != 0x5C ? b : 0x2E) }
            c.byte(0x22)
        case .enumeration:
            named(unsigned(bytes.prefix(7), littleEndian: false), &c)
        case .bits:
            let whole = unsigned(bytes, littleEndian: false)
            let width = field.bitHigh - field.bitLow + 1
            let v = (whole >> field.bitLow) & ((1 << width) - 1)
            if field.table >= 0 { named(v, &c) } else { c.int(v) }
        case .date:
            let v = unsigned(bytes, littleEndian: false)
            c.byte(0x22); date(2000 + (v >> 9), (v >> 5) & 0x0F, v & 0x1F, &c); c.byte(0x22)
        case .station:
            c.ascii("{\"line\":"); c.int(Int(bytes.byte(0) ?? 0))
            c.ascii(",\"station\":"); c.int(Int(bytes.byte(1) ?? 0)); c.byte(0x7D)
        case .bcdTime:
            let h = Int(bytes.byte(0) ?? 0), m = Int(bytes.byte(1) ?? 0)
            guard h >> 4 <= 9, h & 15 <= 9, m >> 4 <= 9, m & 15 <= 9 else { return quotedHex(&c) }
            c.byte(0x22); two((h >> 4) * 10 + h & 15, &c); c.byte(0x3A); two((m >> 4) * 10 + m & 15, &c); c.byte(0x22)
        case .packedTime:
            let v = unsigned(bytes, littleEndian: false)
            c.byte(0x22); two(v >> 11, &c); c.byte(0x3A); two((v >> 5) & 0x3F, &c); c.byte(0x22)
        case .daySeconds:
            let v = unsigned(bytes, littleEndian: false)
            let (y, m, d) = civilDate(daysSince2000: v >> 17)
            let s = v & 0x1FFFF
            c.byte(0x22)
            date(y, m, d, &c)
            c.byte(0x54)
            two(s / 3600, &c); c.byte(0x3A); two(s / 60 % 60, &c); c.byte(0x3A); two(s % 60, &c)
            c.byte(0x22)
        case .deltaLE, .deltaBE:
            guard field.size <= 7, let other = next?.slice(field.offset, field.size) else { return c.ascii("null") }
            let le = field.type == .deltaLE
            c.int(unsigned(other, littleEndian: le) - unsigned(bytes, littleEndian: le))
        case .checksum:
            var sum = 0
            for b in block.prefix(field.offset) { sum += Int(b) }
            let stored = unsigned(bytes, littleEndian: false)
            c.ascii("{\"value\":"); c.int(stored)
            c.ascii(sum & 0xFFFF == stored ? ",\"ok\":true}" : ",\"ok\":false}")
        }
    }

    static func writeText(_ entry: FeliCaServiceEntry, block: ByteView, next: ByteView?, registry: Registry,
                          to out: OutputBuffer) {
        var first = true
        for field in entry.fields {
            guard let v = value(field, block: block, next: next, registry: registry) else { continue }
            if case .none = v { continue }
            if !first { out.byte(0x20) }
            first = false
            out.string(field.name)
            out.byte(0x3D)
            writeTextValue(v, out)
        }
    }

    /// `writeText(entry, ...)` from a compiled layout: names copied from its text pool,
    /// a code's name found by binary search instead of the registry's dictionaries.
    /// Same bytes (Shapes15FastPathTests).
    static func writeText(_ layout: FeliCaCompiledLayout, block: ByteView, next: ByteView?, to out: OutputBuffer) {
        var first = true
        var i = 0
        while i < layout.fields.count {
            let field = layout.fields[i]
            defer { i += 1 }
            let shape = FieldShape(offset: field.offset, size: field.size, type: field.type, bitHigh: field.bitHigh,
                                   bitLow: field.bitLow, hasTable: field.table >= 0)
            guard let v = value(shape, block: block, next: next, name: { _ in nil }) else { continue }
            if case .none = v { continue }
            if !first { out.byte(0x20) }
            first = false
            let name = layout.textFieldNames[i]
            out.bytes(layout.textPool, from: name.lowerBound, count: name.count)
            out.byte(0x3D)
            if case .named(let code, _) = v {
                if field.table >= 0, let r = layout.textName(table: field.table, code: code) {
                    // An empty name writes nothing, as `out.string("")` does.
                    out.bytes(layout.textPool, from: r.lowerBound, count: r.count)
                } else {
                    out.ascii("code "); out.int(code)
                }
                continue
            }
            writeTextValue(v, out)
        }
    }

    /// `writeText(layout, ...)` into one reservation of `textFieldsBound` bytes: each
    /// value written as it is read (no `FeliCaFieldValue`), names and code names copied
    /// from the layout's text pool, a 16-byte block whose fields lie within it by
    /// `writeTextSixteen`. Same bytes (FeliCaBlockWriterTests).
    static func writeTextFields(_ layout: FeliCaCompiledLayout, block: ByteView, next: ByteView?,
                                to out: OutputBuffer) {
        out.withReserved(layout.textFieldsBound) { c in writeTextFields(layout, block: block, next: next, &c) }
    }

    /// The text of `writeTextFields(..., to:)` into a cursor with at least
    /// `textFieldsBound` bytes of room.
    @inline(__always)
    static func writeTextFields(_ layout: FeliCaCompiledLayout, block: ByteView, next: ByteView?,
                                _ c: inout OutputCursor) {
        if block.count == 16, let sixteen = layout.textSixteen, let h = block.u64le(0), let l = block.u64le(8) {
            writeTextSixteen(layout, sixteen, block: block, high: h.byteSwapped, low: l.byteSwapped, next: next,
                             nextWhole: sixteenBits(next), &c)
            return
        }
        var first = true
        var i = 0
        while i < layout.fields.count {
            writeTextField(layout, i, block: block, next: next, first: &first, &c)
            i += 1
        }
    }

    /// Field `i` as `writeText(layout, ...)` writes it: ` name=value` (without the space
    /// when `first`, which it then clears); nothing when the field does not fit the
    /// block or has no value (a delta without the next block's field).
    private static func writeTextField(_ layout: FeliCaCompiledLayout, _ i: Int, block: ByteView, next: ByteView?,
                                       first: inout Bool, _ c: inout OutputCursor) {
        let field = layout.fields[i]
        guard let bytes = block.slice(field.offset, field.size) else { return }
        var other = ByteView()
        if field.type == .deltaLE || field.type == .deltaBE {
            guard field.size <= 7, let o = next?.slice(field.offset, field.size) else { return }
            other = o
        }
        if !first { c.byte(0x20) }
        first = false
        let pool = layout.textPoolView
        let name = layout.textFieldNames[i]
        c.bytes(pool.slice(name.lowerBound, name.count) ?? ByteView())
        c.byte(0x3D)
        func two(_ v: Int, _ c: inout OutputCursor) {
            if v < 10 { c.byte(0x30) }
            c.int(v)
        }
        func date(_ y: Int, _ m: Int, _ d: Int, _ c: inout OutputCursor) {
            c.int(y); c.byte(0x2D); two(m, &c); c.byte(0x2D); two(d, &c)
        }
        func named(_ code: Int, _ c: inout OutputCursor) {
            if field.table >= 0, let r = layout.textName(table: field.table, code: code) {
                c.bytes(pool.slice(r.lowerBound, r.count) ?? ByteView())
            } else {
                c.ascii("code "); c.int(code)
            }
        }
        switch field.type {
        case .uintLE, .uintBE:
            if field.size <= 7 { c.int(unsigned(bytes, littleEndian: field.type == .uintLE)) } else { c.hex(bytes) }
        case .sintLE, .sintBE:
            guard field.size <= 7 else { return c.hex(bytes) }
            let u = unsigned(bytes, littleEndian: field.type == .sintLE)
            let bits = 8 * field.size
            c.int(u >= 1 << (bits - 1) ? u - (1 << bits) : u)
        case .bcd:
            var v = 0
            for b in bytes {
                guard b >> 4 <= 9, b & 0x0F <= 9, v < Int.max / 100 else { return c.hex(bytes) }
                v = v * 100 + Int(b >> 4) * 10 + Int(b & 0x0F)
            }
            c.int(v)
        case .hex: c.hex(bytes)
        case .ascii:
            for b in bytes { c.byte(b >= 0x20 && b < 0x7F && b != 0x22 && b != 0x5C ? b : 0x2E) }
        case .enumeration:
            named(unsigned(bytes.prefix(7), littleEndian: false), &c)
        case .bits:
            let whole = unsigned(bytes, littleEndian: false)
            let width = field.bitHigh - field.bitLow + 1
            let v = (whole >> field.bitLow) & ((1 << width) - 1)
            if field.table >= 0 { named(v, &c) } else { c.int(v) }
        case .date:
            let v = unsigned(bytes, littleEndian: false)
            date(2000 + (v >> 9), (v >> 5) & 0x0F, v & 0x1F, &c)
        case .station:
            c.hexUpper(UInt32(bytes.byte(0) ?? 0), byteCount: 1)
            c.byte(0x2D)
            c.hexUpper(UInt32(bytes.byte(1) ?? 0), byteCount: 1)
        case .bcdTime:
            let h = Int(bytes.byte(0) ?? 0), m = Int(bytes.byte(1) ?? 0)
            guard h >> 4 <= 9, h & 15 <= 9, m >> 4 <= 9, m & 15 <= 9 else { return c.hex(bytes) }
            two((h >> 4) * 10 + h & 15, &c); c.byte(0x3A); two((m >> 4) * 10 + m & 15, &c)
        case .packedTime:
            let v = unsigned(bytes, littleEndian: false)
            two(v >> 11, &c); c.byte(0x3A); two((v >> 5) & 0x3F, &c)
        case .daySeconds:
            let v = unsigned(bytes, littleEndian: false)
            let (y, m, d) = civilDate(daysSince2000: v >> 17)
            let s = v & 0x1FFFF
            date(y, m, d, &c)
            c.byte(0x54)
            two(s / 3600, &c); c.byte(0x3A); two(s / 60 % 60, &c); c.byte(0x3A); two(s % 60, &c)
        case .deltaLE, .deltaBE:
            let le = field.type == .deltaLE
            c.int(unsigned(other, littleEndian: le) - unsigned(bytes, littleEndian: le))
        case .checksum:
            var sum = 0
            for b in block.prefix(field.offset) { sum += Int(b) }
            let stored = unsigned(bytes, littleEndian: false)
            c.int(stored)
            c.ascii(sum & 0xFFFF == stored ? " (ok)" : " (wrong)")
        }
    }

    /// A 16-byte block whose every field fits, as text: each field's value of 1 to 8
    /// bytes cut out of the 128 bits by one shift and mask (as `writeSixteen`), its
    /// space, name and `=` (or, for a code of 0...255 in its table, with the code's
    /// name) one copy, most values in the same claim. Writes what `writeTextField`
    /// writes for each field (FeliCaBlockWriterTests).
    private static func writeTextSixteen(_ layout: FeliCaCompiledLayout,
                                         _ fields: [FeliCaCompiledLayout.TextSixteenField],
                                         block: ByteView, high: UInt64, low: UInt64, next: ByteView?,
                                         nextWhole: UInt128?, _ c: inout OutputCursor) {
        let whole = UInt128(high) &<< 64 | UInt128(low)
        // 1 until a field is written: the first field's lead is written without its space.
        var cut = 1
        for f in fields {
            let lead = cut == 0 ? f.lead : f.lead.suffix(from: 1)
            let be = UInt64(truncatingIfNeeded: whole &>> UInt128(truncatingIfNeeded: f.shift)) & f.mask
            let le = f.littleEndian ? be.byteSwapped &>> UInt64(truncatingIfNeeded: 64 &- 8 &* f.size) : be
            let value = Int(truncatingIfNeeded: f.littleEndian ? le : be)
            switch f.kind {
            case .general:
                var first = cut != 0
                writeTextField(layout, f.field, block: block, next: next, first: &first, &c)
                if !first { cut = 0 }
                continue
            case .unsigned:
                c.leadInt(lead, value)
            case .signed:
                let bits = 8 * f.size
                c.leadInt(lead, value >= 1 << (bits - 1) ? value - (1 << bits) : value)
            case .code, .bitsCode, .bits:
                let code: Int
                if f.kind == .code {
                    code = Int(truncatingIfNeeded: f.size <= 7 ? be : be >> 8)
                } else {
                    let width = f.bitHigh - f.bitLow + 1
                    code = (Int(truncatingIfNeeded: be) >> f.bitLow) & ((1 << width) - 1)
                    if f.kind == .bits {
                        c.leadInt(lead, code)
                        break
                    }
                }
                if f.named >= 0, code >= 0, code < 256 {
                    let named = layout.textNamed[f.named &+ code]
                    if named.count > 0 {
                        c.bytes(cut == 0 ? named : named.suffix(from: 1))
                        break
                    }
                }
                c.bytes(lead)
                let table = layout.fields[f.field].table
                if table >= 0, let r = layout.textName(table: table, code: code) {
                    c.bytes(layout.textPoolView.slice(r.lowerBound, r.count) ?? ByteView())
                } else {
                    c.ascii("code "); c.int(code)
                }
            case .date:
                let v = Int(truncatingIfNeeded: be)
                // Up to 2 bytes (every FeliCa date): year 2000...2127, one claim with the lead.
                if f.size <= 2 {
                    c.leadIsoDate(lead, year: 2000 &+ (v >> 9), month: (v >> 5) & 0x0F, day: v & 0x1F)
                } else {
                    c.bytes(lead)
                    textDate(2000 + (v >> 9), (v >> 5) & 0x0F, v & 0x1F, &c)
                }
            case .packedTime:
                c.bytes(lead)
                textTwo(value >> 11, &c); c.byte(0x3A); textTwo((value >> 5) & 0x3F, &c)
            case .daySeconds:
                c.bytes(lead)
                let (y, m, d) = civilDate(daysSince2000: value >> 17)
                let s = value & 0x1FFFF
                textDate(y, m, d, &c)
                c.byte(0x54)
                textTwo(s / 3600, &c); c.byte(0x3A); textTwo(s / 60 % 60, &c); c.byte(0x3A); textTwo(s % 60, &c)
            case .station:
                c.leadHexPairDash(lead, UInt8(truncatingIfNeeded: be &>> UInt64(truncatingIfNeeded: 8 &* (f.size &- 1))),
                                  f.size >= 2 ? UInt8(truncatingIfNeeded: be &>> UInt64(truncatingIfNeeded: 8 &* (f.size &- 2))) : 0)
            case .bcdTime:
                let h = Int(truncatingIfNeeded: (be &>> UInt64(truncatingIfNeeded: 8 &* (f.size &- 1))) & 0xFF)
                let m = f.size >= 2 ? Int(truncatingIfNeeded: (be &>> UInt64(truncatingIfNeeded: 8 &* (f.size &- 2))) & 0xFF) : 0
                guard h >> 4 <= 9, h & 15 <= 9, m >> 4 <= 9, m & 15 <= 9 else {
                    c.leadHexBigEndian(lead, be, byteCount: f.size)
                    break
                }
                c.bytes(lead)
                textTwo((h >> 4) * 10 + h & 15, &c); c.byte(0x3A); textTwo((m >> 4) * 10 + m & 15, &c)
            case .delta:
                if let nextWhole {
                    // The same field of the next block (16 bytes: every field fits), as above.
                    let obe = UInt64(truncatingIfNeeded: nextWhole &>> UInt128(truncatingIfNeeded: f.shift)) & f.mask
                    let ole = f.littleEndian ? obe.byteSwapped &>> UInt64(truncatingIfNeeded: 64 &- 8 &* f.size) : obe
                    c.leadInt(lead, Int(truncatingIfNeeded: ole) - value)
                    break
                }
                // No value without the next block's field: the field is left out.
                guard let other = next?.slice(f.offset, f.size) else { continue }
                c.bytes(lead)
                c.int(unsigned(other, littleEndian: f.littleEndian) - value)
            case .hex:
                // The field's bytes in order are its big-endian value's (1 to 8 bytes).
                c.leadHexBigEndian(lead, be, byteCount: f.size)
            }
            cut = 0
        }
    }

    @inline(__always)
    private static func textTwo(_ v: Int, _ c: inout OutputCursor) {
        if v < 10 { c.byte(0x30) }
        c.int(v)
    }

    @inline(__always)
    private static func textDate(_ y: Int, _ m: Int, _ d: Int, _ c: inout OutputCursor) {
        c.int(y); c.byte(0x2D); textTwo(m, &c); c.byte(0x2D); textTwo(d, &c)
    }

    static func writeJSONValue(_ v: FeliCaFieldValue, _ out: OutputBuffer) {
        switch v {
        case .int(let i): out.int(i)
        case .hex(let b):
            out.byte(0x22); out.hex(b); out.byte(0x22)
        case .text(let b):
            out.byte(0x22); writePrintable(b, out); out.byte(0x22)
        case .date, .time, .dateTime:
            out.byte(0x22); writeTextValue(v, out); out.byte(0x22)
        case .station(let line, let station):
            out.ascii("{\"line\":"); out.int(line)
            out.ascii(",\"station\":"); out.int(station); out.byte(0x7D)
        case .named(let code, let name):
            out.ascii("{\"code\":"); out.int(code)
            out.ascii(",\"name\":")
            if let name { out.byte(0x22); out.jsonEscaped(name); out.byte(0x22) } else { out.ascii("null") }
            out.byte(0x7D)
        case .checksum(let value, let ok):
            out.ascii("{\"value\":"); out.int(value)
            out.ascii(ok ? ",\"ok\":true}" : ",\"ok\":false}")
        case .none: out.ascii("null")
        }
    }

    static func writeTextValue(_ v: FeliCaFieldValue, _ out: OutputBuffer) {
        switch v {
        case .int(let i): out.int(i)
        case .hex(let b): out.hex(b)
        case .text(let b): writePrintable(b, out)
        case .date(let y, let m, let d): writeDate(y, m, d, out)
        case .time(let h, let m):
            two(h, out); out.byte(0x3A); two(m, out)
        case .dateTime(let y, let m, let d, let s):
            writeDate(y, m, d, out)
            out.byte(0x54)
            two(s / 3600, out); out.byte(0x3A); two(s / 60 % 60, out); out.byte(0x3A); two(s % 60, out)
        case .station(let line, let station):
            out.hexByte(UInt8(truncatingIfNeeded: line), uppercase: true)
            out.byte(0x2D)
            out.hexByte(UInt8(truncatingIfNeeded: station), uppercase: true)
        case .named(let code, let name):
            if let name { out.string(name) } else { out.ascii("code "); out.int(code) }
        case .checksum(let value, let ok):
            out.int(value)
            out.ascii(ok ? " (ok)" : " (wrong)")
        case .none: out.ascii("-")
        }
    }

    // MARK: Helpers

    static func unsigned(_ bytes: ByteView, littleEndian: Bool) -> Int {
        var v = 0
        if littleEndian {
            var i = bytes.count
            while i > 0 {
                i -= 1
                v = v << 8 | Int(bytes.byte(i) ?? 0)
            }
        } else {
            for b in bytes { v = v << 8 | Int(b) }
        }
        return v
    }

    private static func writeDate(_ y: Int, _ m: Int, _ d: Int, _ out: OutputBuffer) {
        out.int(y); out.byte(0x2D); two(m, out); out.byte(0x2D); two(d, out)
    }

    private static func two(_ v: Int, _ out: OutputBuffer) {
        if v < 10 { out.byte(0x30) }
        out.int(v)
    }

    private static func writePrintable(_ b: ByteView, _ out: OutputBuffer) {
        for c in b { out.byte(c >= 0x20 && c < 0x7F && c != 0x22 && c != 0x5C ? c : 0x2E) }
    }

    /// Gregorian date of a day count from 2000-01-01 (days-from-civil inverted).
    static func civilDate(daysSince2000 days: Int) -> (Int, Int, Int) {
        let z = days + 730_425          // days from 0000-03-01 to 2000-01-01
        let era = z / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}

/// The last `Registry.feliCaCompiledLayout` lookup and its answer, which depends on
/// nothing but the system, code, block number and the block's bytes.
struct FeliCaLayoutMemo {
    private var system: UInt16?
    private var code: UInt16 = 0
    private var block = 0
    private var data = ByteView()
    private var answer: FeliCaCompiledLayout?
    private var valid = false
    /// The code looked up last (`FeliCaLayoutIndex.CodeHint`).
    private var hint = FeliCaLayoutIndex.CodeHint()

    mutating func layout(_ registry: Registry, system: UInt16?, code: UInt16, block: Int,
                         data: ByteView) -> FeliCaCompiledLayout? {
        layout(registry.feliCaLayoutIndex, system: system, code: code, block: block, data: data)
    }

    /// The same, from the registry's index taken once (`Registry.feliCaLayoutIndex`).
    mutating func layout(_ index: FeliCaLayoutIndex, system: UInt16?, code: UInt16, block: Int,
                         data: ByteView) -> FeliCaCompiledLayout? {
        if valid, self.code == code, self.block == block, self.system == system, self.data.elementsEqual(data) {
            return answer
        }
        answer = index.layout(system: system, code: code, block: block, data: data, hint: &hint)
        (self.system, self.code, self.block, self.data, valid) = (system, code, block, data, true)
        return answer
    }
}
