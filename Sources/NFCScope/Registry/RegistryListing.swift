// `nfcscope plugins list`: one line per loaded entry with the place it came from,
// so a user can see which of their definitions took effect.

extension Registry {
    /// Writes the loaded entries of one kind (nil: all kinds), one per line:
    /// kind, key, description, source.
    public func writeList(kind: PluginKind?, to out: OutputBuffer) {
        func line(_ kind: PluginKind, _ key: String, _ text: String, _ source: EntrySource) {
            out.string(kind.rawValue)
            out.string("\t")
            out.string(key)
            out.string("\t")
            out.string(text)
            out.string("\t")
            out.string(source.description)
            out.byte(0x0A)
        }
        func hex(_ bytes: [UInt8]) -> String { bytes.map(Registry.hexByte).joined() }

        if kind == nil || kind == .aid {
            for e in aids {
                line(.aid, hex(e.aid), "\(e.name) [\(e.kind.rawValue); \(e.vendor)]", e.source)
            }
        }
        if kind == nil || kind == .tag {
            for e in tags {
                var text = "\(e.name) [\(e.format.rawValue)"
                if let r = e.renderer { text += "; renderer=\(r)" }
                if !e.lengths.isEmpty { text += "; length=" + e.lengths.map(String.init).joined(separator: ",") }
                if !e.aidPrefixes.isEmpty { text += "; aid=" + e.aidPrefixes.map(hex).joined(separator: ",") }
                line(.tag, Registry.tagHex(e.tag), text + "]", e.source)
            }
        }
        if kind == nil || kind == .bits {
            for name in bitTables.keys.sorted() {
                guard let table = bitTables[name] else { continue }
                for bit in table.bits {
                    line(.bits, "\(name) \(bit.byte).\(bit.bit)", bit.meaning, bit.source ?? table.source)
                }
            }
        }
        if kind == nil || kind == .codes {
            for name in codeTables.keys.sorted() {
                guard let table = codeTables[name] else { continue }
                for code in table.entries.keys.sorted() {
                    let text = ([table.entries[code] ?? ""] + (table.columns[code] ?? [])).joined(separator: " | ")
                    line(.codes, "\(name) \(code)", text, table.rowSources[code] ?? table.source)
                }
            }
        }
        if kind == nil || kind == .system {
            for code in systems.keys.sorted() {
                guard let e = systems[code] else { continue }
                line(.system, Registry.hex16(code), e.name, e.source)
            }
        }
        if kind == nil || kind == .service {
            for e in services {
                let fields = e.fields.map { "\($0.name)@\($0.offset)+\($0.size):\($0.type.rawValue)" }
                let text = e.name + (fields.isEmpty ? "" : " [" + fields.joined(separator: " ") + "]")
                line(.service, (e.system.map(Registry.hex16) ?? "*") + " " + Registry.hex16(e.code)
                     + (e.block.map { " block \($0)" } ?? ""), text, e.source)
            }
        }
        if kind == nil || kind == .capk {
            for e in caPublicKeys {
                let text = "\(e.modulus.count * 8)-bit key, exponent \(hex(e.exponent)), expiry \(e.expiry ?? "unknown") [\(e.origin)]"
                line(.capk, hex(e.rid) + " " + Registry.hexByte(e.index), text, e.source)
            }
        }
    }

    static func hexByte(_ b: UInt8) -> String {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "A", "B", "C", "D", "E", "F"]
        return String([digits[Int(b >> 4)], digits[Int(b & 0x0F)]])
    }

    static func hex16(_ v: UInt16) -> String { hexByte(UInt8(v >> 8)) + hexByte(UInt8(v & 0xFF)) }

    static func tagHex(_ tag: UInt32) -> String {
        var bytes: [UInt8] = []
        var t = tag
        repeat {
            bytes.insert(UInt8(t & 0xFF), at: 0)
            t >>= 8
        } while t != 0
        return bytes.map(hexByte).joined()
    }
}
