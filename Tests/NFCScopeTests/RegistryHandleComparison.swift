import Testing
@testable import NFCScope

/// Two registries meant to be equal (one built another way), compared through one tag's
/// handle in one context: both find it or neither does, and what its name member and its
/// text name write is the same. Shared by the start-up suites (Session23StartupTests,
/// Session42RegistryTests).
enum RegistryHandleComparison {
    static func expectSame(_ new: Registry, _ old: Registry, tag: UInt32, length: Int, aid: [UInt8]?) {
        let handles = [new, old].map { r in
            aid.map { a in ByteView.with(a) { r.tagHandle(tag, length: length, aid: $0) } } ?? r.tagHandle(tag, length: length, aid: nil)
        }
        guard let h0 = handles[0], let h1 = handles[1] else {
            #expect(handles[0] == nil && handles[1] == nil)
            return
        }
        #expect(new.tagHasText(h0) == old.tagHasText(h1))
        let outs = (0..<4).map { _ in OutputBuffer() }
        new.writeTagNameMember(h0, to: outs[0])
        old.writeTagNameMember(h1, to: outs[1])
        new.writeTagName(h0, to: outs[2], target: .text)
        old.writeTagName(h1, to: outs[3], target: .text)
        #expect(outs[0].contents == outs[1].contents && outs[2].contents == outs[3].contents)
    }
}
