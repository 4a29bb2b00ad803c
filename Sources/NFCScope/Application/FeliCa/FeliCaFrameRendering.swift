// The one-line annotation and the JSON members of a FeliCa frame (the `frame`
// record), written without allocating, like the rest of the link-layer rendering.

extension FeliCaFrameInfo {
    public func writeInfo(_ out: OutputBuffer) {
        guard let command else {
            out.ascii("FeliCa code ")
            out.hexByte(code, uppercase: true)
            return
        }
        out.ascii(command.name)
        if isResponse, command != .echo { out.ascii(" answer") }
        let p = packet
        switch (command, isResponse) {
        case (.polling, false):
            if let r = FeliCaPollingRequest(p) {
                out.ascii(" SC "); out.hex16(r.systemCode, uppercase: true)
                out.ascii(" RC "); out.hexByte(r.requestCode, uppercase: true)
                out.ascii(" slots "); out.int(r.slotCount)
            }
        case (.polling, true):
            if let r = FeliCaPollingResponse(p) {
                out.ascii(" IDm "); out.hex(r.idm)
                out.ascii(" PMm "); out.hex(r.pmm)
                if let rd = r.requestData { out.ascii(" RD "); out.hex16(rd, uppercase: true) }
            }
        case (.readWithoutEncryption, false), (.writeWithoutEncryption, false):
            if case .success(let r) = FeliCaBlockRequest.parse(p, write: command == .writeWithoutEncryption) {
                out.ascii(" services")
                for i in 0..<r.serviceCount {
                    out.byte(0x20)
                    out.hex16(r.serviceCode(i) ?? 0, uppercase: true)
                }
                out.ascii(" blocks "); out.int(r.blocks.count)
            }
        case (.readWithoutEncryption, true), (.writeWithoutEncryption, true):
            if case .success(let r) = FeliCaBlockResponse.parse(p, read: command == .readWithoutEncryption) {
                out.ascii(" SF "); out.hexByte(r.status1, uppercase: true)
                out.byte(0x20); out.hexByte(r.status2, uppercase: true)
                if command == .readWithoutEncryption, r.status1 == 0 { out.ascii(" blocks "); out.int(r.blockCount) }
            }
        default:
            if command.isProtected { out.ascii(" (protected)") }
        }
    }

    public func writeJSONMembers(_ out: OutputBuffer) {
        out.ascii(",\"framing\":\"")
        out.ascii(framing.jsonName)
        out.ascii("\",\"code\":\"")
        out.hexByte(code, uppercase: true)
        out.ascii("\",\"command\":")
        if let command {
            out.byte(0x22); out.ascii(command.jsonName); out.byte(0x22)
        } else {
            out.ascii("null")
        }
        out.ascii(isResponse ? ",\"response\":true" : ",\"response\":false")
        if let idm {
            out.ascii(",\"idm\":\"")
            out.hex(idm)
            out.byte(0x22)
        }
    }
}
