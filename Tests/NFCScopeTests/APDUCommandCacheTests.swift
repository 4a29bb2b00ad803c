import Testing
@testable import NFCScope

/// Session 18: an APDU record's command members (JSON, `cla` to `error_offset`) and its
/// command line (text, after the indentation) are kept in the writer's cache by the
/// command's bytes and copied when the same command comes again. Generated commands
/// (repeated from a pool: well-formed of every case, short and extended, malformed, too
/// short for a header, longer than the cache keeps, SIM class), with and without
/// responses and `uicc`, written through one cache, against the same writer without one;
/// in long buffers that flush too, alongside TLV trees written through the same cache.
@Suite struct APDUCommandCacheTests {
    static func command(_ g: inout FastPathGenerator) -> [UInt8] {
        let header: [UInt8] = g.pick([[0x00, 0xB2, 0x01, 0x0C], [0x00, 0xA4, 0x04, 0x00], [0x80, 0xA8, 0x00, 0x00],
                                       [0x80, 0xAE, 0x80, 0x00], [0xA0, 0xA4, 0x00, 0x00], [0x00, 0xB0, 0x00, 0x00],
                                       [0x00, 0xB2, UInt8(g.int(16)), UInt8(g.int(256))], [0x90, 0x5A, 0x00, 0x00],
                                       [UInt8(g.int(256)), UInt8(g.int(256)), UInt8(g.int(256)), UInt8(g.int(256))]])
        switch g.int(9) {
        case 0: return header                                                     // case 1
        case 1: return header + [0x00]                                            // case 2
        case 2:                                                                   // case 3
            let data = g.bytes(1 + g.int(20))
            return header + [UInt8(data.count)] + data
        case 3:                                                                   // case 4
            let data = g.pick([Array("2PAY.SYS.DDF01".utf8), [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], g.bytes(1 + g.int(40))])
            return header + [UInt8(data.count)] + data + [0x00]
        case 4:                                                                   // extended
            let data = g.bytes(g.int(3) == 0 ? 200 : 1 + g.int(30))
            return header + [0x00, UInt8(data.count >> 8), UInt8(data.count & 0xFF)] + data + [0x00, 0x00]
        case 5: return Array(header.prefix(g.int(4)))                              // too short
        case 6: return header + [0x05, 0x01]                                      // Lc past the end
        case 7: return header + g.bytes(1 + g.int(6))                             // anything
        default: return header + [0x00, 0x00]                                     // extended Le or malformed
        }
    }

    @Test func cachedCommandPartsAreWhatTheWriterWritesWithout() {
        var g = FastPathGenerator(state: 0xC0_3D_18)
        let cache = RenderedValueCache(registry: Registry.builtin)
        var pool: [[UInt8]] = []
        for _ in 0..<60 { pool.append(Self.command(&g)) }
        let longCached = OutputBuffer(), longPlain = OutputBuffer()
        for round in 0..<20_000 {
            let command = g.chance(85) ? g.pick(pool) : Self.command(&g)
            let response: [UInt8]? = g.chance(5) ? nil : g.pick([[0x90, 0x00], [0x6A, 0x82], [0x70, 0x03, 0x5A, 0x01, 0x42, 0x90, 0x00],
                                                                 [0x01], []])
            let uicc = g.chance(15)
            let captured = !g.chance(3)
            let indent = g.int(8)
            ByteView.with(command) { c in
                ByteView.with(response ?? []) { r in
                    let view = APDUExchangeView(command: captured ? c : nil, response: response == nil ? nil : r)
                    var parsed: APDUCommand?
                    var error: APDUError?
                    if captured {
                        do throws(APDUError) { parsed = try APDUCommand(parsing: c) } catch let e { error = e }
                    }
                    let resp = response == nil ? nil : APDUResponse(parsing: r)
                    let a = OutputBuffer(), b = OutputBuffer(), t = OutputBuffer(), u = OutputBuffer()
                    let atA = view.writeJSONMembers(a, parsed: parsed, error: error, response: resp, uicc: uicc, cache: cache)
                    let atB = view.writeJSONMembers(b, parsed: parsed, error: error, response: resp, uicc: uicc)
                    view.writeText(t, indent: indent, parsed: parsed, error: error, response: resp, uicc: uicc, cache: cache)
                    view.writeText(u, indent: indent, parsed: parsed, error: error, response: resp, uicc: uicc)
                    #expect(a.string == b.string, "round \(round): \(hexUpper(command)) uicc \(uicc)")
                    #expect(atA == atB, "round \(round): response hex at")
                    #expect(t.string == u.string, "round \(round) text: \(hexUpper(command)) uicc \(uicc)")
                    view.writeJSONMembers(longCached, parsed: parsed, error: error, response: resp, uicc: uicc, cache: cache)
                    view.writeText(longCached, indent: indent, parsed: parsed, error: error, response: resp, uicc: uicc,
                                   cache: cache)
                    view.writeJSONMembers(longPlain, parsed: parsed, error: error, response: resp, uicc: uicc)
                    view.writeText(longPlain, indent: indent, parsed: parsed, error: error, response: resp, uicc: uicc)
                }
            }
            // TLV trees through the same cache (its node table is shared with the commands).
            if round % 4 == 0 {
                let bytes = TLVNodeCacheTests.tree(&g)
                ByteView.with(bytes) { view in
                    let tree = BERTLV(parsing: view)
                    let context = EMVContext()
                    RegistryNodeWriter.writeTreeJSON(tree, registry: .builtin, cache: cache, context: context, to: longCached)
                    RegistryNodeWriter.writeTreeText(tree, registry: .builtin, cache: cache, indent: 2, context: context,
                                                     to: longCached)
                    RegistryNodeWriter.writeTreeJSON(tree, registry: .builtin, cache: nil, context: context, to: longPlain)
                    RegistryNodeWriter.writeTreeText(tree, registry: .builtin, cache: nil, indent: 2, context: context,
                                                     to: longPlain)
                }
            }
        }
        #expect(cache.nodeHitCount > 20_000, "\(cache.nodeHitCount) copied")
        #expect(longPlain.position > 1_000_000)
        longCached.flush(); longPlain.flush()
        #expect(longCached.contents == longPlain.contents)
    }

    /// The `application` member and text line, kept by the AID's bytes and its index (the
    /// line only after a SELECT by name): registry AIDs with
    /// their index, the same AIDs with no index or another's, unknown and long AIDs, and a
    /// cache of another registry (not used), against the same writer without a cache.
    @Test func applicationMembersCopiedAreWhatTheWriterWritesWithout() {
        var g = FastPathGenerator(state: 0xA1D_18)
        let registry = Registry.builtin
        let cache = RenderedValueCache(registry: registry)
        let otherCache = RenderedValueCache(registry: Registry.empty)
        let known = registry.aids.count
        #expect(known > 10)
        var aids: [[UInt8]] = [Array("2PAY.SYS.DDF01".utf8), [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], [0xA0, 0, 0, 0, 0x04, 0x10, 0x10],
                               g.bytes(5), g.bytes(16), g.bytes(140), []]
        for _ in 0..<10 { aids.append(g.bytes(5 + g.int(12))) }
        let longCached = OutputBuffer(), longPlain = OutputBuffer()
        var lines = 0
        let frames12 = keptFrameNumbers([1, 2])
        for round in 0..<20_000 {
            var x = APDUInterpretation(exchange: ISODEPExchange(frames: frames12, command: nil, response: nil,
                                                                waitingTimeExtensions: 0, retransmissions: 0,
                                                                sawBadCRC: false, incomplete: false, overlong: false))
            let aid = g.pick(aids)
            // The text line is written for a SELECT by name (any other command: none).
            if aid.count < 256, !g.chance(10) {
                ByteView.with([0x00, 0xA4, 0x04, 0x00, UInt8(aid.count)] + aid + [0x00]) { c in
                    x.command = try? APDUCommand(parsing: c)
                }
            }
            x.applicationAID = g.chance(5) ? nil : aid
            x.applicationIndex = ByteView.with(aid) { registry.aidIndex($0) }
            if g.chance(10) { x.applicationIndex = g.chance(50) ? nil : g.int(known) }
            let a = OutputBuffer(), b = OutputBuffer()
            let useCache = g.chance(90) ? cache : otherCache
            ApplicationRendering.writeJSONMembers(x, registry: registry, cache: useCache, to: a)
            ApplicationRendering.writeJSONMembers(x, registry: registry, cache: nil, to: b)
            #expect(a.string == b.string, "round \(round): \(hexUpper(aid)) index \(String(describing: x.applicationIndex))")
            let t = OutputBuffer(), u = OutputBuffer()
            let indent = g.int(6)
            ApplicationRendering.writeText(x, registry: registry, cache: useCache, indent: indent, to: t)
            ApplicationRendering.writeText(x, registry: registry, cache: nil, indent: indent, to: u)
            #expect(t.string == u.string, "round \(round) text: \(hexUpper(aid))")
            if x.command?.selectedName != nil, x.applicationAID != nil, x.applicationIndex != nil { lines += 1 }
            ApplicationRendering.writeJSONMembers(x, registry: registry, cache: useCache, to: longCached)
            ApplicationRendering.writeText(x, registry: registry, cache: useCache, indent: indent, to: longCached)
            ApplicationRendering.writeJSONMembers(x, registry: registry, cache: nil, to: longPlain)
            ApplicationRendering.writeText(x, registry: registry, cache: nil, indent: indent, to: longPlain)
        }
        #expect(cache.nodeHitCount > 10_000, "\(cache.nodeHitCount) copied")
        #expect(otherCache.nodeHitCount == 0)
        #expect(lines > 2_000, "\(lines) text lines")
        longCached.flush(); longPlain.flush()
        #expect(longPlain.position > 500_000)
        #expect(longCached.contents == longPlain.contents)
    }
}
