import Testing
@testable import NFCScope

/// `TagMemory` keeps which bytes are known as bits and reuses its room across tags;
/// it answers as the byte-per-flag memory it replaced (kept here as the reference) on
/// random stores, clears and questions.
@Suite struct TagMemoryBitsTests {
    /// The memory as it was: a flag per byte, arrays grown to the highest store.
    struct Reference {
        var bytes: [UInt8] = []
        var known: [Bool] = []
        let limit: Int

        mutating func store(_ data: [UInt8], at address: Int) {
            guard address >= 0, !data.isEmpty else { return }
            let end = min(address + data.count, limit)
            guard end > address else { return }
            if bytes.count < end {
                bytes.append(contentsOf: repeatElement(0, count: end - bytes.count))
                known.append(contentsOf: repeatElement(false, count: end - known.count))
            }
            for i in 0..<(end - address) {
                bytes[address + i] = data[i]
                known[address + i] = true
            }
        }

        func isKnown(_ range: Range<Int>) -> Bool {
            guard range.lowerBound >= 0, range.upperBound <= known.count else { return range.isEmpty }
            for i in range where !known[i] { return false }
            return true
        }

        func knownCount(_ range: Range<Int>) -> Int {
            let upper = min(range.upperBound, known.count)
            guard range.lowerBound < upper else { return 0 }
            var n = 0
            for i in range.lowerBound..<upper where known[i] { n += 1 }
            return n
        }

        func byte(_ address: Int) -> UInt8? {
            address >= 0 && address < known.count && known[address] ? bytes[address] : nil
        }

        func knownRun(from start: Int, count: Int) -> [UInt8] {
            guard start >= 0, start < known.count else { return [] }
            var end = start
            while end < known.count, end - start < count, known[end] { end += 1 }
            return Array(bytes[start..<end])
        }
    }

    @Test func bitsAnswerAsTheFlagsDid() {
        var state: UInt64 = 0x7A6_0001
        func next() -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int(state >> 33)
        }
        for limit in [1, 16, 63, 64, 65, 200, 1024] {
            var memory = TagMemory(limit: limit)
            var reference = Reference(limit: limit)
            for step in 0..<3_000 {
                if next() % 97 == 0 {
                    memory.removeAll()
                    reference = Reference(limit: limit)
                }
                let address = next() % (limit + 40) - 4
                let data = (0..<(next() % 70)).map { _ in UInt8(truncatingIfNeeded: next()) }
                ByteView.with(data) { memory.store($0, at: address) }
                reference.store(data, at: address)
                #expect(memory.isEmpty == reference.bytes.isEmpty)
                #expect(memory.size == reference.bytes.count)
                for _ in 0..<4 {
                    let a = next() % (limit + 20) - 2
                    let b = a + next() % 150 - 5
                    let range = a..<max(a, b)
                    #expect(memory.isKnown(range) == reference.isKnown(range), "limit \(limit) step \(step) \(range)")
                    if range.lowerBound >= 0 {
                        #expect(memory.knownCount(range) == reference.knownCount(range), "limit \(limit) step \(step) \(range)")
                    }
                    #expect(memory.byte(a) == reference.byte(a))
                    let count = next() % 140 - 3
                    #expect(Array(memory.knownRun(from: a, count: count)) == reference.knownRun(from: a, count: count),
                            "limit \(limit) step \(step) from \(a) count \(count)")
                }
            }
        }
    }
}
