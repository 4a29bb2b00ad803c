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
/// bytes it gets from a capture. Its nodes lie in one array, each node's children next
/// to each other, with the byte leading to node `j` at `labels[j]`: no two small arrays
/// per node (at start-up the built-in AIDs' ~1,000 nodes cost ~0.4 M instructions that way).
public struct PrefixDissectorTable<Value> {
    private struct Node {
        var first: Int32 = 0
        var count: Int32 = 0
        /// Index in `values`, -1 when no prefix ends here.
        var value: Int32 = -1
    }
    private var nodes: [Node] = [Node()]
    private var labels: [UInt8] = [0]
    private var values: [Value] = []
    private var prefixes: [[UInt8]] = []

    public init() {}

    /// The table that registering `values[i]` under `prefixes[i]` for each `i` in turn gives.
    public init(prefixes keys: [[UInt8]], values newValues: [Value]) {
        var total = 1
        for key in keys { total += key.count }
        var linked = LinkedTrie(capacity: total)
        for (key, value) in zip(keys, newValues) {
            let node = linked.insert(key)
            if linked.nodes[node].value >= 0 {
                values[Int(linked.nodes[node].value)] = value
            } else {
                linked.nodes[node].value = Int32(values.count)
                values.append(value)
                prefixes.append(key)
            }
        }
        (nodes, labels) = linked.flattened()
    }

    /// Registers `value` for every key that starts with `prefix`; replaces an earlier
    /// registration of the same prefix.
    public mutating func register(prefix: [UInt8], _ value: Value) {
        if let place = exactPlace(prefix) {
            values[place] = value
            return
        }
        values.append(value)
        prefixes.append(prefix)
        var total = 1
        for key in prefixes { total += key.count }
        var linked = LinkedTrie(capacity: total)
        for (place, key) in prefixes.enumerated() { linked.nodes[linked.insert(key)].value = Int32(place) }
        (nodes, labels) = linked.flattened()
    }

    /// The trie while it is built: each node's children as a list (first child, next
    /// sibling), so a new node is one append; `flattened` then lays each node's
    /// children next to each other, breadth first.
    private struct LinkedTrie {
        struct LinkedNode {
            var firstChild: Int32 = -1
            var nextSibling: Int32 = -1
            var value: Int32 = -1
            var label: UInt8 = 0
        }
        var nodes: [LinkedNode] = []

        init(capacity: Int) {
            nodes.reserveCapacity(capacity)
            nodes.append(LinkedNode())
        }

        /// The node of `key`, made with the nodes on its way when missing.
        mutating func insert(_ key: [UInt8]) -> Int {
            var node = 0
            for byte in key {
                var child = nodes[node].firstChild
                while child >= 0, nodes[Int(child)].label != byte { child = nodes[Int(child)].nextSibling }
                if child < 0 {
                    child = Int32(nodes.count)
                    nodes.append(LinkedNode(firstChild: -1, nextSibling: nodes[node].firstChild, value: -1, label: byte))
                    nodes[node].firstChild = child
                }
                node = Int(child)
            }
            return node
        }

        /// The nodes breadth first: a node's place is its place in the queue, and its
        /// children are queued together.
        func flattened() -> ([Node], [UInt8]) {
            var queue: [Int32] = [0]
            queue.reserveCapacity(nodes.count)
            var flat: [Node] = [Node(first: 0, count: 0, value: nodes[0].value)]
            flat.reserveCapacity(nodes.count)
            var labels: [UInt8] = [0]
            labels.reserveCapacity(nodes.count)
            var head = 0
            while head < queue.count {
                let first = queue.count
                var child = nodes[Int(queue[head])].firstChild
                while child >= 0 {
                    let c = nodes[Int(child)]
                    queue.append(child)
                    flat.append(Node(first: 0, count: 0, value: c.value))
                    labels.append(c.label)
                    child = c.nextSibling
                }
                // The list holds the children newest first: reversed, a lookup tries them
                // in the order they were first registered, as `register` once kept them
                // (the AIDs defined first, the common schemes, are found first).
                var i = first, j = queue.count - 1
                while i < j {
                    queue.swapAt(i, j)
                    flat.swapAt(i, j)
                    labels.swapAt(i, j)
                    i += 1
                    j -= 1
                }
                flat[head].first = Int32(first)
                flat[head].count = Int32(queue.count - first)
                head += 1
            }
            return (flat, labels)
        }
    }

    /// The place in `values` of exactly this prefix.
    private func exactPlace(_ prefix: [UInt8]) -> Int? {
        var node = 0
        for byte in prefix {
            let n = nodes[node]
            var c = Int(n.first)
            let end = c + Int(n.count)
            while c < end, labels[c] != byte { c += 1 }
            guard c < end else { return nil }
            node = c
        }
        return nodes[node].value >= 0 ? Int(nodes[node].value) : nil
    }

    /// The value of the longest registered prefix of `key`, and that prefix's length.
    public func lookup(_ key: ByteView) -> (value: Value, prefixLength: Int)? {
        var node = 0
        var best: (Int32, Int)? = nodes[0].value >= 0 ? (nodes[0].value, 0) : nil
        var depth = 0
        for byte in key {
            let n = nodes[node]
            var c = Int(n.first)
            let end = c + Int(n.count)
            while c < end, labels[c] != byte { c += 1 }
            guard c < end else { break }
            node = c
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

extension PrefixDissectorTable where Value == Int {
    /// The table `init(prefixes: prefixes, values: Array(prefixes.indices))` gives, from its
    /// layout: per node breadth first its first child, child count and value (-1: none), and
    /// the byte into it. plugins/embed.sh writes it for the built-in AIDs (BuiltinTables.swift:
    /// the trie's ~1,000 nodes cost ~0.19 M instructions to build at every start); a test
    /// compares it with the one built. nil when the arrays or `prefixes` do not fit together.
    init?(first: [Int32], count: [Int32], value: [Int32], labels: [UInt8], prefixes: [[UInt8]]) {
        guard count.count == first.count, value.count == first.count, labels.count == first.count else { return nil }
        var values = 0
        for v in value where v >= 0 {
            guard Int(v) < prefixes.count else { return nil }
            values += 1
        }
        guard values == prefixes.count else { return nil }
        var nodes: [Node] = []
        nodes.reserveCapacity(first.count)
        for i in first.indices { nodes.append(Node(first: first[i], count: count[i], value: value[i])) }
        self.nodes = nodes
        self.labels = labels
        self.values = Array(prefixes.indices)
        self.prefixes = prefixes
    }

    /// Whether `other` has this table's layout, values and prefixes (tests).
    func hasLayout(of other: PrefixDissectorTable<Int>) -> Bool {
        guard nodes.count == other.nodes.count, labels == other.labels, values == other.values,
              prefixes == other.prefixes else { return false }
        for i in nodes.indices {
            let a = nodes[i], b = other.nodes[i]
            guard a.first == b.first, a.count == b.count, a.value == b.value else { return false }
        }
        return true
    }
}
