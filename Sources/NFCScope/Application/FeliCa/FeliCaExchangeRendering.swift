// Writes a FeliCa exchange as the members of a `felica` JSON record and as text
// lines under the frame that completed it. The packets are parsed again here, as
// they are written, so an exchange costs no storage beyond the request's copy.

extension FeliCaExchange {
    // MARK: JSON

    /// Members after `"type":"felica","frames":[...]`, each starting with a comma.
    public func writeJSONMembers(_ out: OutputBuffer) {
        out.ascii(fromDump ? ",\"source\":\"dump\"" : ",\"source\":\"capture\"")
        out.ascii(",\"command\":")
        if let kind { out.byte(0x22); out.ascii(kind.jsonName); out.byte(0x22) } else { out.ascii("null") }
        out.ascii(",\"code\":")
        if let c = command?.code { code8(c, out) } else { out.ascii("null") }
        out.ascii(",\"response_code\":")
        if let c = response?.code { code8(c, out) } else { out.ascii("null") }
        out.ascii(",\"idm\":")
        if let idm { quotedHex(idm, out) } else { out.ascii("null") }
        out.ascii(",\"system\":")
        if let system {
            code16(system, out)
            out.ascii(",\"system_name\":")
            registry.writeFeliCaSystemName(system, out)
        } else {
            out.ascii("null")
        }
        switch kind {
        case .polling?: writePollingJSON(out)
        case .readWithoutEncryption?, .writeWithoutEncryption?: writeBlocksJSON(out)
        case .requestService?: writeRequestServiceJSON(out)
        case .requestSystemCode?: writeSystemCodesJSON(out)
        case .searchServiceCode?: writeSearchJSON(out)
        case .requestResponse?:
            if let mode = response?.packet.byte(9) { out.ascii(",\"mode\":"); out.int(Int(mode)) }
        default: writeOpaqueJSON(out)
        }
        out.ascii(sawBadCRC ? ",\"crc\":\"bad\"" : ",\"crc\":\"ok\"")
        out.ascii(",\"complete\":")
        out.ascii(command != nil && response != nil ? "true" : "false")
    }

    private func writePollingJSON(_ out: OutputBuffer) {
        if let request = command.flatMap({ FeliCaPollingRequest($0.packet) }) {
            out.ascii(",\"system_code\":"); code16(request.systemCode, out)
            out.ascii(",\"request_code\":"); out.int(Int(request.requestCode))
            out.ascii(",\"time_slots\":"); out.int(request.slotCount)
        }
        guard let answer = response.flatMap({ FeliCaPollingResponse($0.packet) }) else { return }
        if let idm = FeliCaIDm(answer.idm) {
            out.ascii(",\"manufacturer_code\":"); code16(idm.manufacturerCode, out)
            out.ascii(",\"card_id\":"); quotedHex(idm.cardIdentification, out)
            out.ascii(",\"system_number\":"); out.int(idm.systemNumber)
        }
        out.ascii(",\"pmm\":"); quotedHex(answer.pmm, out)
        if let pmm = FeliCaPMm(answer.pmm) {
            out.ascii(",\"ic_type\":"); code8(pmm.icType, out)
            out.ascii(",\"rom_type\":"); code8(pmm.romType, out)
            out.ascii(",\"chip\":")
            registry.writeFeliCaChipName(pmm, out)
            out.ascii(",\"timeouts_us\":{")
            for c in FeliCaPMm.CommandClass.allCases {
                if c != .requestService { out.byte(0x2C) }
                let t = pmm.timeout(c)
                out.byte(0x22); out.ascii(c.jsonName); out.ascii("\":{\"base\":")
                out.int((t.baseNanos + 500) / 1000)
                out.ascii(",\"per_unit\":")
                out.int((t.perUnitNanos + 500) / 1000)
                out.byte(0x7D)
            }
            out.byte(0x7D)
        }
        if let rd = answer.requestData {
            out.ascii(",\"request_data\":"); code16(rd, out)
        }
    }

    private func writeBlocksJSON(_ out: OutputBuffer) {
        let write = kind == .writeWithoutEncryption
        let (request, answer) = parsedBlocks(write: write)
        // Taken once: reached through the registry, each lookup would retain and release it.
        let index = registry.feliCaLayoutIndex
        if let request {
            out.ascii(",\"services\":[")
            for i in 0..<request.serviceCount {
                guard let code = request.serviceCode(i) else { break }
                if i > 0 { out.byte(0x2C) }
                out.ascii("{\"code\":"); code16(code, out)
                out.ascii(",\"name\":")
                if let service = index.service(system: system, code: code, block: -1) {
                    out.bytes(service.quotedName)
                } else {
                    out.ascii("null")
                }
                out.ascii(",\"attribute\":\""); out.ascii(FeliCaServiceAttribute.kind(code))
                out.ascii(FeliCaServiceAttribute.needsKey(code) ? "\",\"key\":true}" : "\",\"key\":false}")
            }
            out.byte(0x5D)
        }
        out.ascii(",\"blocks\":[")
        // The loop's state goes through the walk as an argument: a closure that captured
        // it as variables would box them and check each access at run time.
        var state = BlocksJSONState()
        let system = system
        forEachBlock(request: request, answer: answer, write: write, state: &state) { state, i, element, data, next in
            let code = element.flatMap { request?.serviceCode($0.serviceIndex) }
            var found: (FeliCaCompiledLayout, ByteView?)?
            if let data, let code {
                found = FeliCaBlockLayout.compiledLayout(index, system: system, code: code, block: element?.block ?? i,
                                                         data: data, next: next, memo: &state.memo)
            }
            // The whole block in one reservation: numbers (20 bytes at most each), the
            // hex, the layout's members, the literals (under 80) and the fields.
            let members = found?.0.layoutMembersView ?? ByteView()
            var fields: (FeliCaCompiledLayout, ByteView, ByteView?)?
            if let (layout, previous) = found, let data, !layout.empty, !layout.fields.isEmpty {
                fields = (layout, data, previous)
            }
            let isFirst = state.first
            state.first = false
            out.withReserved(141 + 2 * (data?.count ?? 0) + members.count + (fields?.0.fieldsBound ?? 0)) { c in
                // Literals joined where they meet (fewer claims, the same bytes).
                if let code {
                    if isFirst { c.ascii("{\"service\":\"") } else { c.ascii(",{\"service\":\"") }
                    c.hexUpper(UInt32(code), byteCount: 2)
                    c.ascii("\",\"block\":")
                } else {
                    if !isFirst { c.byte(0x2C) }
                    c.ascii("{\"service\":null,\"block\":")
                }
                c.int(element?.block ?? i)
                if let element {
                    c.ascii(",\"access_mode\":"); c.int(Int(element.accessMode))
                }
                if let data { c.ascii(",\"hex\":\""); c.hex(data); c.byte(0x22) } else { c.ascii(",\"hex\":null") }
                // `,"layout":NAME` and `,"empty":true` or `,"fields":`; none without fields.
                c.bytes(members)
                if let (layout, data, previous) = fields {
                    FeliCaBlockLayout.writeFields(layout, block: data, next: previous, &c)
                }
                c.byte(0x7D)
            }
        }
        out.byte(0x5D)
        if let answer {
            out.ascii(",\"status\":["); out.int(Int(answer.status1)); out.byte(0x2C); out.int(Int(answer.status2))
            out.ascii("],\"status_text\":[\"")
            out.ascii(FeliCaStatusFlags.status1Meaning(answer.status1))
            out.ascii("\",\"")
            out.ascii(FeliCaStatusFlags.status2Meaning(answer.status2))
            out.ascii("\"]")
        }
    }

    /// Each block the exchange read (or wrote, for a write) with its service code and
    /// block number, for the stages that assemble a card's memory.
    func forEachBlockData(_ body: (_ service: UInt16?, _ block: Int, _ data: ByteView) -> Void) {
        guard kind == .readWithoutEncryption || kind == .writeWithoutEncryption else { return }
        let write = kind == .writeWithoutEncryption
        let (request, answer) = parsedBlocks(write: write)
        // Blocks count only when the card answered with success (for a write: only
        // then is it known to have happened).
        guard let answer, answer.status1 == 0 else { return }
        forEachBlock(request: request, answer: answer, write: write) { _, element, data, _ in
            guard let data, let element else { return }
            body(request?.serviceCode(element.serviceIndex), element.block, data)
        }
    }

    /// The request and answer of a Read/Write Without Encryption, where they parse.
    private func parsedBlocks(write: Bool) -> (FeliCaBlockRequest?, FeliCaBlockResponse?) {
        let request: FeliCaBlockRequest? = command.flatMap {
            // A read request the frame decoder's check parsed: its fields without the checks.
            if !write, $0.readRequestParses, let r = FeliCaBlockRequest.parsedRead($0.packet) { return r }
            if case .success(let r) = FeliCaBlockRequest.parse($0.packet, write: write) { return r }
            return nil
        }
        let answer: FeliCaBlockResponse? = response.flatMap {
            if case .success(let r) = FeliCaBlockResponse.parse($0.packet, read: !write) { return r }
            return nil
        }
        return (request, answer)
    }

    private func forEachBlock(request: FeliCaBlockRequest?, answer: FeliCaBlockResponse?, write: Bool,
                              _ body: (Int, FeliCaBlockListElement?, ByteView?, ByteView?) -> Void) {
        var none: Void = ()
        forEachBlock(request: request, answer: answer, write: write, state: &none) { _, i, e, d, n in body(i, e, d, n) }
    }

    /// Pairs the request's block list with the blocks of the answer (read) or of the
    /// request itself (write); the `next` block is the same service's following one.
    /// `state` is handed to each call of `body`.
    private func forEachBlock<State>(request: FeliCaBlockRequest?, answer: FeliCaBlockResponse?, write: Bool,
                                     state: inout State,
                                     _ body: (inout State, Int, FeliCaBlockListElement?, ByteView?, ByteView?) -> Void) {
        func data(_ i: Int) -> ByteView? {
            write ? request?.data.slice(16 * i, 16) : answer?.block(i)
        }
        if let request {
            var elements: (FeliCaBlockListElement?, FeliCaBlockListElement?) = (nil, nil)
            var index = -1
            // One element of look-ahead, so a block can be paired with its successor (the
            // walk of `FeliCaBlockList.forEach`, written out: no closure per element).
            var at = 0
            for i in 0..<max(0, request.blocks.count) {
                guard let e = FeliCaBlockList.element(request.blocks.bytes, at) else { break }
                at += e.length
                if let current = elements.1 {
                    let next = current.serviceIndex == e.serviceIndex ? data(i) : nil
                    body(&state, index, current, data(index), next)
                }
                elements.1 = e
                index = i
            }
            if let current = elements.1 { body(&state, index, current, data(index), nil) }
            if let answer, answer.blockCount > request.blocks.count {
                for i in request.blocks.count..<answer.blockCount { body(&state, i, nil, data(i), nil) }
            }
        } else if let answer {
            for i in 0..<answer.blockCount { body(&state, i, nil, data(i), nil) }
        }
    }

    private func writeRequestServiceJSON(_ out: OutputBuffer) {
        guard let request = command?.packet, let n = request.byte(9) else { return }
        let versions = response?.packet
        out.ascii(",\"nodes\":[")
        for i in 0..<Int(n) {
            guard let code = request.u16le(10 + 2 * i) else { break }
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"code\":"); code16(code, out)
            out.ascii(",\"key_version\":")
            if let v = versions?.u16le(10 + 2 * i), v != 0xFFFF { code16(v, out) } else { out.ascii("null") }
            out.byte(0x7D)
        }
        out.byte(0x5D)
    }

    private func writeSystemCodesJSON(_ out: OutputBuffer) {
        guard let answer = response?.packet, let n = answer.byte(9) else { return }
        out.ascii(",\"systems\":[")
        for i in 0..<Int(n) {
            guard let code = answer.u16be(10 + 2 * i) else { break }
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"code\":"); code16(code, out)
            out.ascii(",\"name\":")
            if let name = registry.feliCaSystem(code)?.name { quoted(name, out) } else { out.ascii("null") }
            out.byte(0x7D)
        }
        out.byte(0x5D)
    }

    private func writeSearchJSON(_ out: OutputBuffer) {
        if let index = command?.packet.u16le(9) { out.ascii(",\"index\":"); out.int(Int(index)) }
        guard let answer = response?.packet, let code = answer.u16le(9) else { return }
        if code == 0xFFFF {
            out.ascii(",\"end\":true")
        } else if let end = answer.u16le(11), answer.count >= 13 {
            out.ascii(",\"area\":"); code16(code, out)
            out.ascii(",\"area_end\":"); code16(end, out)
        } else {
            out.ascii(",\"service\":"); code16(code, out)
            out.ascii(",\"attribute\":\""); out.ascii(FeliCaServiceAttribute.kind(code)); out.byte(0x22)
        }
    }

    /// Commands whose payload the decoder does not take apart: their bytes after the
    /// IDm, and whether they are protected by a session key.
    private func writeOpaqueJSON(_ out: OutputBuffer) {
        if kind?.isProtected == true { out.ascii(",\"protected\":true") }
        out.ascii(",\"data\":")
        if let command { quotedHex(Self.body(command), out) } else { out.ascii("null") }
        out.ascii(",\"response_data\":")
        if let response { quotedHex(Self.body(response), out) } else { out.ascii("null") }
    }

    static func body(_ info: FeliCaFrameInfo) -> ByteView {
        var skip = 1
        if info.code == 0xF0 { skip = 2 }
        if info.idm != nil { skip = 9 }
        return info.packet.suffix(from: min(skip, info.packet.count))
    }

    // MARK: Text

    /// Lines under the frame that completed the exchange, each starting with `indent` spaces.
    public func writeText(_ out: OutputBuffer, indent: Int) {
        // The indent in one piece (a capacity check and word stores), not a byte at a time.
        func line() { out.spaces(indent) }
        line()
        out.ascii("FeliCa ")
        if let kind { out.ascii(kind.name) } else { out.ascii("code "); out.hexByte(command?.code ?? response?.code ?? 0, uppercase: true) }
        if let idm { out.ascii(" IDm "); out.hex(idm) }
        if let system {
            out.ascii(" system "); out.hex16(system, uppercase: true)
            // ` (name)`, as `registry.feliCaSystem(system)?.name` gives it (no copy of the entry).
            registry.writeFeliCaSystemTextName(system, out)
        }
        if response == nil { out.ascii(" (no answer)") }
        if command == nil { out.ascii(" (answer only)") }
        if sawBadCRC { out.ascii(" (bad CRC)") }
        out.byte(0x0A)
        switch kind {
        case .polling?:
            guard let answer = response.flatMap({ FeliCaPollingResponse($0.packet) }),
                  let pmm = FeliCaPMm(answer.pmm) else { break }
            line()
            out.ascii("  PMm "); out.hex(answer.pmm)
            out.ascii(" IC "); out.hexByte(pmm.icType, uppercase: true)
            out.ascii(" ROM "); out.hexByte(pmm.romType, uppercase: true)
            // ` name`, as `registry.feliCaChipName(pmm)` gives it.
            registry.writeFeliCaChipTextName(pmm, out)
            let read = pmm.timeout(.read)
            out.ascii(" read timeout "); out.int((read.baseNanos + 500) / 1000)
            out.ascii("+"); out.int((read.perUnitNanos + 500) / 1000); out.ascii("n us")
            if let rd = answer.requestData { out.ascii(" RD "); out.hex16(rd, uppercase: true) }
            out.byte(0x0A)
        case .readWithoutEncryption?, .writeWithoutEncryption?:
            writeBlocksText(out, indent: indent, line)
        default:
            break
        }
        out.recordDone()
    }

    private func writeBlocksText(_ out: OutputBuffer, indent: Int, _ line: () -> Void) {
        let write = kind == .writeWithoutEncryption
        let (request, answer) = parsedBlocks(write: write)
        if let request {
            for i in 0..<request.serviceCount {
                guard let code = request.serviceCode(i) else { break }
                line()
                out.ascii("  service "); out.hex16(code, uppercase: true)
                if let name = registry.feliCaService(system: system, code: code, block: -1)?.name {
                    out.byte(0x20); out.string(name)
                }
                out.ascii(" ("); out.ascii(FeliCaServiceAttribute.kind(code))
                out.ascii(FeliCaServiceAttribute.needsKey(code) ? ", key)\n" : ", no key)\n")
            }
        }
        // The layouts `FeliCaBlockLayout.layout(registry, ...)` finds, from the index taken
        // once, remembered from one block to the next; the fields written from the
        // compiled layout (its names as UTF-8, codes by binary search).
        let index = registry.feliCaLayoutIndex
        let system = system
        var memo = FeliCaLayoutMemo()
        forEachBlock(request: request, answer: answer, write: write, state: &memo) { memo, i, element, data, next in
            let code = element.flatMap { request?.serviceCode($0.serviceIndex) }
            // A block with fields (most): its two lines in one reservation, the layout
            // looked up first (`writeBlockLines`); the others below.
            if let code, let data,
               let (layout, previous) = FeliCaBlockLayout.compiledLayout(index, system: system, code: code,
                                                                         block: element?.block ?? i, data: data,
                                                                         next: next, memo: &memo),
               !layout.empty, !layout.fields.isEmpty {
                Self.writeBlockLines(out, indent: indent, code: code, block: element?.block ?? i, data: data,
                                     layout: layout, previous: previous)
                return
            }
            line()
            out.ascii("  block ")
            if let code { out.hex16(code, uppercase: true); out.byte(0x3A) }
            out.int(element?.block ?? i)
            if let data {
                out.ascii("  "); out.hex(data)
                if let code,
                   let (layout, previous) = FeliCaBlockLayout.compiledLayout(index, system: system, code: code,
                                                                             block: element?.block ?? i, data: data,
                                                                             next: next, memo: &memo),
                   layout.empty || !layout.fields.isEmpty {
                    out.byte(0x0A)
                    line()
                    out.ascii("    ")
                    if layout.empty {
                        out.ascii("empty: ")
                        out.string(layout.entry.name)
                    } else {
                        FeliCaBlockLayout.writeText(layout, block: data, next: previous, to: out)
                    }
                }
            }
            out.byte(0x0A)
        }
        if let answer {
            line()
            out.ascii("  status "); out.hexByte(answer.status1, uppercase: true); out.byte(0x20)
            out.hexByte(answer.status2, uppercase: true); out.ascii(" ")
            out.ascii(answer.status1 == 0 ? FeliCaStatusFlags.status2Meaning(answer.status2)
                                          : FeliCaStatusFlags.status1Meaning(answer.status1))
            if answer.status1 != 0 { out.ascii(": "); out.ascii(FeliCaStatusFlags.status2Meaning(answer.status2)) }
            out.byte(0x0A)
        }
    }
}

extension FeliCaExchange {
    /// The lines `writeBlocksText` writes for a block of service `code` whose `layout`
    /// has fields: `block CODE:N  hex`, then the fields (`FeliCaBlockLayout.writeTextFields`),
    /// in one reservation whose bound is worked out before writing. The same bytes as
    /// the appends it replaces (FeliCaBlockWriterTests).
    static func writeBlockLines(_ out: OutputBuffer, indent: Int, code: UInt16, block: Int, data: ByteView,
                                layout: FeliCaCompiledLayout, previous: ByteView?) {
        // Two indents, `  block `, the code and `:`, the number, two spaces, the hex,
        // a newline, four spaces, the fields and a newline.
        let indentRoom = max(0, indent)
        let bound = 2 * indentRoom + 8 + 5 + 20 + 2 + 2 * data.count + 1 + 4 + layout.textFieldsBound + 1 + 32
        out.withReserved(bound) { c in
            c.spaces(indent)
            c.ascii("  block ")
            c.hexUpper(UInt32(code), byteCount: 2)
            c.byte(0x3A)
            c.int(block)
            c.ascii("  ")
            c.hex(data)
            c.byte(0x0A)
            c.spaces(indent)
            c.ascii("    ")
            FeliCaBlockLayout.writeTextFields(layout, block: data, next: previous, &c)
            c.byte(0x0A)
        }
    }
}

// MARK: Helpers

/// What `writeBlocksJSON` carries from one block to the next.
private struct BlocksJSONState {
    var first = true
    var memo = FeliCaLayoutMemo()
}

@inline(__always)
fileprivate func code8(_ v: UInt8, _ out: OutputBuffer) {
    out.byte(0x22); out.hexByte(v, uppercase: true); out.byte(0x22)
}

@inline(__always)
fileprivate func code16(_ v: UInt16, _ out: OutputBuffer) {
    out.byte(0x22); out.hex16(v, uppercase: true); out.byte(0x22)
}

@inline(__always)
fileprivate func quotedHex(_ v: ByteView, _ out: OutputBuffer) {
    out.byte(0x22); out.hex(v); out.byte(0x22)
}

@inline(__always)
fileprivate func quoted(_ s: String, _ out: OutputBuffer) {
    out.byte(0x22); out.jsonEscaped(s); out.byte(0x22)
}
