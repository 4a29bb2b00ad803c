import Testing
@testable import NFCScope

// Session 17 (s17-json).

/// The APDU record's trees and DOL splits written by `RegistryNodeWriter`'s static
/// writers (the registry and the cache passed along) against `TLVTreeWriter(registry:cache:)`,
/// which holds them: JSON (alone and after the response's hex), text lines, DOL splits,
/// with the registry's cache, with another registry's cache (not used) and with none.
@Suite struct RegistryTreeWritersTests {
    @Test func staticWritersWriteWhatTheTreeWriterWrites() {
        var g = FastPathGenerator(state: 0x5717_0001)
        let registry = Registry.builtin
        let other = Registry(RegistryBuilder())
        let dols: [[UInt8]] = [
            [0x9F, 0x02, 0x06, 0x9F, 0x03, 0x06, 0x9F, 0x1A, 0x02, 0x95, 0x05, 0x5F, 0x2A, 0x02, 0x9A, 0x03, 0x9C, 0x01],
            [0x9F, 0x66, 0x04, 0x9F, 0x02, 0x06, 0x5F, 0x2A, 0x02, 0x9F, 0x37, 0x04],
            [0x82, 0x02, 0x50, 0x0A, 0xE1, 0x03, 0x9F, 0x27, 0x01],
        ]
        for cacheKind in 0..<3 {
            // Each side its own cache, so that both see the same history.
            func makeCache() -> RenderedValueCache? {
                switch cacheKind {
                case 0: return RenderedValueCache(registry: registry)
                case 1: return RenderedValueCache(registry: other)
                default: return nil
                }
            }
            let staticCache = makeCache(), writerCache = makeCache()
            let writer = TLVTreeWriter(registry: registry, cache: writerCache)
            let longStatic = OutputBuffer(), longWriter = OutputBuffer()
            for round in 0..<1_500 {
                var context = EMVContext()
                context.selectedAID = g.pick(TLVNodeCacheTests.aids)
                context.transactionCurrency = g.pick([nil, 978, 840])
                let bytes = TLVNodeCacheTests.tree(&g)
                let indent = g.int(40) - 2
                ByteView.with(bytes) { view in
                    let tree = BERTLV(parsing: view)
                    let a = OutputBuffer(), b = OutputBuffer()
                    RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: staticCache, context: context, to: a)
                    writer.writeJSON(tree, context: context, to: b)
                    #expect(a.string == b.string, "cache \(cacheKind) round \(round): \(hexUpper(bytes))")
                    let ta = OutputBuffer(), tb = OutputBuffer()
                    RegistryNodeWriter.writeTreeText(tree, registry: registry, cache: staticCache, indent: indent,
                                                     context: context, to: ta)
                    writer.writeText(tree, indent: indent, context: context, to: tb)
                    #expect(ta.string == tb.string, "cache \(cacheKind) round \(round) text: \(hexUpper(bytes))")
                    for (out, isStatic) in [(longStatic, true), (longWriter, false)] {
                        out.ascii("{\"response\":\"")
                        let at = out.position
                        out.hex(view)
                        out.ascii("\",\"tlv\":")
                        if isStatic {
                            RegistryNodeWriter.writeTreeJSON(tree, registry: registry, cache: staticCache, context: context,
                                                             parsedFrom: (bytes: view, position: at), to: out)
                        } else {
                            writer.writeJSON(tree, context: context, to: out, parsedFrom: (bytes: view, position: at))
                        }
                        out.ascii("}\n")
                    }
                }
                let dol = g.pick(dols)
                var data = g.bytes(g.int(30))
                if g.chance(30) { data = Array(data.prefix(g.int(data.count + 1))) }
                ByteView.with(dol) { dolView in
                    ByteView.with(data) { dataView in
                        let split = DataObjectList(parsing: dolView).split(dataView)
                        let a = OutputBuffer(), b = OutputBuffer(), c = OutputBuffer(), d = OutputBuffer()
                        RegistryNodeWriter.writeSplitJSON(split, registry: registry, cache: staticCache, context: context, to: a)
                        writer.writeJSON(split, context: context, to: b)
                        RegistryNodeWriter.writeSplitText(split, registry: registry, cache: staticCache, indent: indent,
                                                          context: context, to: c)
                        writer.writeText(split, indent: indent, context: context, to: d)
                        #expect(a.string == b.string, "cache \(cacheKind) round \(round): DOL \(hexUpper(dol)) data \(hexUpper(data))")
                        #expect(c.string == d.string, "cache \(cacheKind) round \(round) text: DOL \(hexUpper(dol))")
                    }
                }
            }
            #expect(longStatic.position > 100_000)
            #expect(longStatic.contents == longWriter.contents)
        }
    }
}

/// An exchange's link members: the literal for a quiet exchange against the members
/// written one by one, for every combination around it.
@Suite struct LinkMembersLiteralTests {
    @Test func quietExchangeLiteralIsWhatThePiecesWrite() {
        var cases = 0
        for wtx in [0, 1, 2, 12, 100] {
            for retransmissions in [0, 1, 3] {
                for bad in [false, true] {
                    for incomplete in [false, true] {
                        for overlong in [false, true] {
                            let e = ISODEPExchange(frames: keptFrameNumbers([1, 2]), command: nil, response: nil, waitingTimeExtensions: wtx,
                                                   retransmissions: retransmissions, sawBadCRC: bad, incomplete: incomplete,
                                                   overlong: overlong)
                            let out = OutputBuffer()
                            e.writeLinkJSONMembers(out)
                            let expected = ",\"wtx\":\(wtx),\"retransmissions\":\(retransmissions),\"crc\":\"\(bad ? "bad" : "ok")\""
                                + ",\"complete\":\(incomplete ? "false" : "true")" + (overlong ? ",\"overlong\":true" : "")
                            #expect(out.string == expected)
                            cases += 1
                        }
                    }
                }
            }
        }
        #expect(cases == 120)
    }
}
