import Foundation
import Testing
@testable import NFCScope

/// Session 40 (s40-session): PSE/PPSE names compared as two words (`isDirectoryName`);
/// a GPO's DOL values learnt by index into the card session's recent DOLs
/// (`EMVContext.learn(fromSplit:arrays:)`); currencies read as one BCD word
/// (`EMVContext.currencyNumber`); the last session's kernel name kept when the kernel and
/// the registry are the same (`EMVSessionChecks.kernel(_:registry:names:into:)`). Each is
/// checked against the code it replaced (copied here) or the registry's own lookup.
@Suite struct Session40SessionTests {
    /// The byte walk `isDirectoryName` was (session 39's code).
    private static func directoryNameByteWalk(_ name: ByteView) -> Bool {
        let suffix: StaticString = "PAY.SYS.DDF01"
        guard name.count == 14, let first = name.byte(0), first == 0x31 || first == 0x32 else { return false }
        let s = suffix.utf8Start
        for i in 0..<13 where name.byte(i + 1) != s[i] { return false }
        return true
    }

    /// Views of 0 to 20 bytes inside larger arrays: the names, the names with one byte
    /// changed (any place, any value), other first bytes, cut or lengthened names and
    /// random bytes. The answer is the byte walk's; both answers are seen.
    @Test func directoryNameWordwiseIsTheByteWalk() {
        var g = FastPathGenerator(state: 0x5E55_4001)
        let names = [Array("1PAY.SYS.DDF01".utf8), Array("2PAY.SYS.DDF01".utf8)]
        var yes = 0, no = 0
        for _ in 0..<60_000 {
            var bytes: [UInt8]
            switch g.int(6) {
            case 0, 1: bytes = g.pick(names)
            case 2:
                bytes = g.pick(names)
                bytes[g.int(14)] = UInt8(truncatingIfNeeded: g.next())
            case 3:
                bytes = g.pick(names)
                bytes[0] = UInt8(0x2E + g.int(8))
            case 4:
                bytes = g.pick(names)
                if g.chance(50) { bytes.removeLast(1 + g.int(3)) } else { bytes += g.bytes(1 + g.int(3)) }
            default: bytes = g.bytes(g.int(21))
            }
            // Inside a larger array (a read outside the view would see these bytes).
            let before = g.bytes(g.int(9)), after = g.bytes(g.int(9))
            let all = before + bytes + after
            let expected = ByteView.with(all) { Self.directoryNameByteWalk($0.suffix(from: before.count).prefix(bytes.count)) }
            let got = ByteView.with(all) { isDirectoryName($0.suffix(from: before.count).prefix(bytes.count)) }
            #expect(got == expected)
            if expected { yes += 1 } else { no += 1 }
        }
        #expect(ByteView.with(Array("1PAY.SYS.DDF01".utf8)) { isDirectoryName($0) })
        #expect(ByteView.with(Array("2PAY.SYS.DDF01".utf8)) { isDirectoryName($0) })
        #expect(!ByteView.with(Array("3PAY.SYS.DDF01".utf8)) { isDirectoryName($0) })
        #expect(!ByteView.with([]) { isDirectoryName($0) })
        #expect(yes > 10_000 && no > 10_000)
    }

    /// Values of 0 to 12 bytes, digits or not: `currencyNumber` is `emvBCDNumber`.
    @Test func currencyNumberIsEMVBCDNumber() {
        var g = FastPathGenerator(state: 0x5E55_4002)
        var some = 0, none = 0
        for _ in 0..<60_000 {
            let n = g.int(13)
            var bytes: [UInt8] = (0..<n).map { _ in UInt8(g.int(10) << 4 | g.int(10)) }
            if n > 0, g.chance(30) { bytes[g.int(n)] = UInt8(truncatingIfNeeded: g.next()) }
            let all = g.bytes(g.int(5)) + bytes + g.bytes(g.int(5))
            let start = all.count - bytes.count - (all.count - bytes.count) / 2
            let (got, expected) = ByteView.with(all) { v -> (Int?, Int?) in
                let view = v.suffix(from: start).prefix(n)
                return (EMVContext.currencyNumber(view), emvBCDNumber(view))
            }
            #expect(got == expected)
            if expected == nil { none += 1 } else { some += 1 }
        }
        #expect(ByteView.with([0x09, 0x78]) { EMVContext.currencyNumber($0) } == 978)
        #expect(ByteView.with([0x08, 0x40]) { EMVContext.currencyNumber($0) } == 840)
        #expect(ByteView.with([0x09, 0x7A]) { EMVContext.currencyNumber($0) } == nil)
        #expect(some > 10_000 && none > 10_000)
    }

    /// Whether two contexts hold the same values (the arrays by their bytes).
    private static func same(_ a: EMVContext, _ b: EMVContext) -> Bool {
        a.transactionCurrency == b.transactionCurrency && a.applicationCurrency == b.applicationCurrency
            && a.selectedAID == b.selectedAID && a.pdol == b.pdol && a.cdol1 == b.cdol1 && a.cdol2 == b.cdol2
    }

    /// DOL splits of 0 to 10 values whose tags are the ones learnt (5F2A, 9F42, 9F38, 8C,
    /// 8D, 84, 4F) and others, complete or cut short, digits or not, learnt into contexts
    /// already holding values: `learn(fromSplit:arrays:)` (one `RecentArrays` kept across
    /// the splits) leaves the context as `learn(from:)` does.
    @Test func splitLearntByIndexIsTheSequencesLearning() {
        var g = FastPathGenerator(state: 0x5E55_4003)
        let tags: [UInt32] = [0x5F2A, 0x9F42, 0x9F38, 0x8C, 0x8D, 0x84, 0x4F, 0x9F02, 0x9F37, 0x95, 0x9A, 0x9F1A]
        let dols: [[UInt8]] = [[0x9F, 0x02, 0x06], [0x5F, 0x2A, 0x02, 0x9A, 0x03], [0x9F, 0x37, 0x04]]
        var arrays = RecentArrays()
        var byIndex = EMVContext(), bySequence = EMVContext()
        var learnt = 0
        for i in 0..<20_000 {
            if i % 50 == 0 {
                byIndex = EMVContext()
                bySequence = EMVContext()
            }
            var backing: [[UInt8]] = []
            var items: [(tag: UInt32, length: Int, bytes: [UInt8])] = []
            for _ in 0..<g.int(11) {
                let tag = g.pick(tags)
                let length = g.int(10)
                var bytes: [UInt8]
                if tag == 0x9F38 || tag == 0x8C || tag == 0x8D {
                    bytes = g.pick(dols)
                    if g.chance(20) { bytes = g.bytes(length) }
                } else if g.chance(70) {
                    bytes = (0..<length).map { _ in UInt8(g.int(10) << 4 | g.int(10)) }
                } else {
                    bytes = g.bytes(length)
                }
                let asked = g.chance(85) ? bytes.count : bytes.count + 1 + g.int(3)
                backing.append(bytes)
                items.append((tag, asked, bytes))
            }
            // The views point into `backing`, alive for the loop's turn.
            withExtendedLifetime(backing) {
                var values: [DOLValue] = []
                for k in items.indices {
                    let view = ByteView.with(backing[k]) { $0 }
                    values.append(DOLValue(tag: items[k].tag, length: items[k].length, value: view))
                }
                let split = DOLSplit(values: values, missingBytes: 0, extra: ByteView())
                bySequence.learn(from: split)
                byIndex.learn(fromSplit: split, arrays: &arrays)
            }
            #expect(Self.same(byIndex, bySequence))
            if bySequence.transactionCurrency != nil || bySequence.pdol != nil { learnt += 1 }
        }
        #expect(learnt > 5_000)
    }

    /// A registry whose kernel names differ from the built-in ones (and names one more).
    private static let otherKernels: Registry = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("s40-session-kernels-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let text = "[codes kernel]\n2 | Other kernel two\n3 | Other kernel three\n40 | Kernel forty\n"
        try? text.write(to: dir.appendingPathComponent("kernels.plugin"), atomically: true, encoding: .utf8)
        let (registry, _) = Registry.load(pluginDirectories: [dir.path], environment: [:])
        return registry
    }()

    /// Session ends in a row through one scratch and one kept kernel (no kernel, 9F2A of
    /// any value, RIDs with and without a kernel, the registry changed now and then, the
    /// kernel cleared as `clearChecks` does): every kernel is the one a fresh scratch
    /// makes, its name the registry's own.
    @Test func keptKernelNameIsTheRegistrysName() {
        var g = FastPathGenerator(state: 0x5E55_4004)
        let registries = [Registry.builtin, Self.otherKernels]
        let rids: [[UInt8]] = [[0xA0, 0, 0, 0, 0x03], [0xA0, 0, 0, 0, 0x04], [0xA0, 0, 0, 0, 0x25], [0xA0, 0, 0, 0, 0x99]]
        let scratch = SessionEndScratch()
        var kept: KernelInfo?
        var registry = registries[0]
        var named = 0, kinds = Set<Int>()
        for _ in 0..<20_000 {
            if g.chance(5) { registry = g.pick(registries) }
            if g.chance(5) { kept = nil }
            var e = ODAEvidence()
            if g.chance(85) { ByteView.with(g.pick(rids) + [0x10, 0x10]) { e.select($0) } }
            if g.chance(30) {
                let b: UInt8 = g.chance(50) ? UInt8(truncatingIfNeeded: g.next()) : UInt8(2 + g.int(2)) | (g.chance(50) ? 0x40 : 0)
                ByteView.with([b]) { e.card.set(0x9F2A, $0) }
            }
            EMVSessionChecks.kernel(e, registry: registry, names: scratch, into: &kept)
            let fresh = EMVSessionChecks.kernel(e, registry: registry, names: SessionEndScratch())
            #expect(kept?.id == fresh?.id)
            #expect(kept?.name == fresh?.name)
            #expect(kept?.from == fresh?.from)
            if let k = kept {
                #expect(k.name == registry.code("kernel", k.id))
                if k.name != nil { named += 1 }
                kinds.insert(k.id)
            }
        }
        #expect(named > 5_000 && kinds.count > 20)
        #expect(Self.otherKernels.code("kernel", 3) == "Other kernel three")
    }

    /// The slot's registry stays when it is cleared (read only when it holds a tag):
    /// after a clear or Strings it answers as a new slot, and a tag set again holds
    /// the registry given.
    @Test func sessionValueSlotKeepsItsRegistryOnly() {
        var slot = SessionValueSlot()
        let bytes: ArraySlice<UInt8> = [0x01, 0x02]
        slot.setTag(0x9F10, bytes, aid: [0xA0, 0, 0, 0, 0x03, 0x10, 0x10], index: nil, registry: .builtin)
        slot.clear()
        // The AID may stay too (session 41: read only when the slot holds a tag).
        #expect(slot.isNone && slot.sessionValue == nil && slot.bytes.isEmpty && slot.index == nil)
        slot.setTag(0x9F34, bytes, aid: nil, index: 3, registry: Self.otherKernels)
        #expect(slot.registry === Self.otherKernels)
        if case let .tag(v)? = slot.sessionValue {
            #expect(v.registry === Self.otherKernels && v.tag == 0x9F34 && v.index == 3 && v.aid == nil)
        } else {
            Issue.record("no tag value")
        }
        slot.setStrings("AB", "text")
        #expect(slot.bytes.isEmpty)
        if case let .strings(h, t)? = slot.sessionValue { #expect(h == "AB" && t == "text") } else { Issue.record("no strings") }
    }
}
