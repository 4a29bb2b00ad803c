// Dissector tables in the spirit of Wireshark's: a lower layer owns a table and
// looks up whatever a higher layer registered for the key it just decoded (an AID
// after SELECT, a tag inside a template, a FeliCa system code). The tables are
// filled once at start-up and only read while decoding, so they are values that
// can be shared across threads once built.

/// Handlers registered under an exact key. A later registration replaces an earlier one,
/// which lets a more specific module take over from a generic one.
public struct DissectorTable<Key: Hashable, Value> {
    private var handlers: [Key: Value] = [:]

    public init() {}

    public mutating func register(_ key: Key, _ value: Value) {
        handlers[key] = value
    }

    public func lookup(_ key: Key) -> Value? { handlers[key] }

    public var count: Int { handlers.count }
    public var keys: Dictionary<Key, Value>.Keys { handlers.keys }
}

extension DissectorTable: Sendable where Key: Sendable, Value: Sendable {}

/// Handlers registered under byte-string prefixes; a lookup finds the longest registered
/// prefix of the key (an AID selects the most specific application entry that matches,
/// a RID-only entry catches the rest of a scheme's applications).
///
/// A byte trie: the walk reads the key in place, so a lookup never copies or hashes the
/// bytes it gets from a capture.
public struct PrefixDissectorTable<Value> {
    private struct Node {
        var labels: [UInt8] = []
        var children: [Int32] = []
        var value: Int32 = -1
    }
    private var nodes: [Node] = [Node()]
    private var values: [Value] = []
    private var prefixes: [[UInt8]] = []

    public init() {}

    /// Registers `value` for every key that starts with `prefix`; replaces an earlier
    /// registration of the same prefix.
    public mutating func register(prefix: [UInt8], _ value: Value) {
        var node = 0
        for byte in prefix {
            if let i = nodes[node].labels.firstIndex(of: byte) {
                node = Int(nodes[node].children[i])
            } else {
                nodes.append(Node())
                let child = nodes.count - 1
                nodes[node].labels.append(byte)
                nodes[node].children.append(Int32(child))
                node = child
            }
        }
        if nodes[node].value >= 0 {
            values[Int(nodes[node].value)] = value
        } else {
            values.append(value)
            prefixes.append(prefix)
            nodes[node].value = Int32(values.count - 1)
        }
    }

    /// The value of the longest registered prefix of `key`, and that prefix's length.
    public func lookup(_ key: ByteView) -> (value: Value, prefixLength: Int)? {
        var node = 0
        var best: (Int32, Int)? = nodes[0].value >= 0 ? (nodes[0].value, 0) : nil
        var depth = 0
        for byte in key {
            guard let i = nodes[node].labels.firstIndex(of: byte) else { break }
            node = Int(nodes[node].children[i])
            depth += 1
            if nodes[node].value >= 0 { best = (nodes[node].value, depth) }
        }
        guard let (index, length) = best else { return nil }
        return (values[Int(index)], length)
    }

    public func lookup(_ key: [UInt8]) -> (value: Value, prefixLength: Int)? {
        ByteView.with(key) { lookup($0) }
    }

    /// The value registered for exactly this prefix.
    public func exact(_ prefix: [UInt8]) -> Value? {
        guard let hit = lookup(prefix), hit.prefixLength == prefix.count else { return nil }
        return hit.value
    }

    /// Registered prefixes and values, in registration order.
    public var entries: [(prefix: [UInt8], value: Value)] {
        Array(zip(prefixes, values)).map { (prefix: $0.0, value: $0.1) }
    }

    public var count: Int { values.count }
}

extension PrefixDissectorTable: Sendable where Value: Sendable {}
