// The two boundaries the stages share, written once: where an ISO-DEP exchange is
// cut short and where a card session ends.

extension Frame {
    /// A field event or a link frame that ends ISO-DEP (HLTA, DESELECT, a new
    /// activation) closes the exchange in progress, before the frame is written.
    @inline(__always)
    public var closesExchange: Bool { event != nil || info.endsISODEPSession }

    /// The field dropping or a link frame that ends ISO-DEP ends the card session;
    /// a field-on event does not (the session starts with the activation after it).
    @inline(__always)
    public var endsCardSession: Bool { endsCardSession(closesExchange: closesExchange) }

    /// The same, for the per-frame loop that has `closesExchange` at hand already.
    @inline(__always)
    public func endsCardSession(closesExchange: Bool) -> Bool { closesExchange && event != .fieldOn }
}
