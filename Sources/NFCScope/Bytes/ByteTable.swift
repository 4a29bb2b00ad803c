// Lookup tables of 256 bytes kept as string literals: a read is a load from the
// literal's storage (no global to initialise, no array and no bounds check), for the
// card session's walks over every node of a tree (`TagValues.slot`, `EMVContext.learn`).

/// Byte `i` of `table`, a literal of 256 ASCII bytes; 0 for a shorter literal's missing bytes.
@inline(__always)
func tableByte(_ table: StaticString, _ i: UInt8) -> UInt8 {
    guard table.hasPointerRepresentation, Int(i) < table.utf8CodeUnitCount else { return 0 }
    return table.utf8Start[Int(i)]
}
