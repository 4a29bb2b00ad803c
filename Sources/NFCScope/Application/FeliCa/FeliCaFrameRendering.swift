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
                // One reservation: 5 bytes a service, the literals and a number under 50.
                out.withReserved(50 + 5 * r.serviceCount) { c in
                    c.ascii(" services")
                    for i in 0..<r.serviceCount {
                        c.byte(0x20)
                        c.hexUpper(UInt32(r.serviceCode(i) ?? 0), byteCount: 2)
                    }
                    c.ascii(" blocks "); c.int(r.blocks.count)
                }
            }
        case (.readWithoutEncryption, true), (.writeWithoutEncryption, true):
            if case .success(let r) = FeliCaBlockResponse.parse(p, read: command == .readWithoutEncryption) {
                out.withReserved(50) { c in
                    c.ascii(" SF "); c.hexUpper(UInt32(r.status1), byteCount: 1)
                    c.byte(0x20); c.hexUpper(UInt32(r.status2), byteCount: 1)
                    if command == .readWithoutEncryption, r.status1 == 0 { c.ascii(" blocks "); c.int(r.blockCount) }
                }
            }
        default:
            if command.isProtected { out.ascii(" (protected)") }
        }
    }

    public func writeJSONMembers(_ out: OutputBuffer) {
        // One reservation: the literals and names are under 120 bytes, the IDm 16.
        let framingName = framing.jsonName, commandName = command?.jsonName
        out.withReserved(160 + framingName.utf8CodeUnitCount + (commandName?.utf8CodeUnitCount ?? 0)) { c in
            c.ascii(",\"framing\":\"")
            c.ascii(framingName)
            c.ascii("\",\"code\":\"")
            c.hexUpper(UInt32(code), byteCount: 1)
            c.ascii("\",\"command\":")
            if let commandName {
                c.byte(0x22); c.ascii(commandName); c.byte(0x22)
            } else {
                c.ascii("null")
            }
            c.ascii(isResponse ? ",\"response\":true" : ",\"response\":false")
            if let idm {
                c.ascii(",\"idm\":\"")
                c.hex(idm)
                c.byte(0x22)
            }
        }
    }
}

extension FeliCaFrameInfo {
    /// What `writeInfo`, a closing `"` and `writeJSONMembers` write for a Read Without
    /// Encryption request or answer whose packet parses (nearly every frame of a FeliCa
    /// card read), in one reservation with the command's names as literals; false, with
    /// nothing written, for every other frame (the caller then writes it the general
    /// way). The two general writers cost two calls, three reservations and the names'
    /// lookups a frame.
    @inline(never)
    func writeReadWithoutEncryptionInfoQuoteAndJSONMembers(_ out: OutputBuffer) -> Bool {
        guard command == .readWithoutEncryption else { return false }
        let framingName = framing.jsonName
        let idm = self.idm
        // The literals and numbers take under 200 bytes, the framing's name at most 8,
        // the IDm's hex 16; a request's services 5 bytes each.
        if isResponse {
            guard case .success(let r) = FeliCaBlockResponse.parse(packet, read: true) else { return false }
            out.withReserved(256) { c in
                c.ascii("Read Without Encryption answer SF "); c.hexUpper(UInt32(r.status1), byteCount: 1)
                c.byte(0x20); c.hexUpper(UInt32(r.status2), byteCount: 1)
                if r.status1 == 0 { c.ascii(" blocks "); c.int(r.blockCount) }
                c.ascii("\",\"framing\":\""); c.ascii(framingName)
                c.ascii("\",\"code\":\""); c.hexUpper(UInt32(code), byteCount: 1)
                c.ascii("\",\"command\":\"read_without_encryption\",\"response\":true")
                if let idm { c.ascii(",\"idm\":\""); c.hex(idm); c.byte(0x22) }
            }
        } else {
            // The service count, codes and block count, as `FeliCaBlockRequest.parse` gives
            // them: read in place when the frame decoder's check parsed the packet.
            let serviceCount: Int, codes: ByteView, blockCount: Int
            if readRequestParses, let n = packet.byte(9), let s = packet.slice(10, 2 &* Int(n)),
               let m = packet.byte(10 &+ 2 &* Int(n)) {
                serviceCount = Int(n); codes = s; blockCount = Int(m)
            } else {
                guard case .success(let r) = FeliCaBlockRequest.parse(packet, write: false) else { return false }
                serviceCount = r.serviceCount; codes = r.serviceCodes; blockCount = r.blocks.count
            }
            out.withReserved(256 + 5 * serviceCount) { c in
                c.ascii("Read Without Encryption services")
                for i in 0..<serviceCount {
                    c.byte(0x20)
                    c.hexUpper(UInt32(codes.u16le(2 &* i) ?? 0), byteCount: 2)
                }
                c.ascii(" blocks "); c.int(blockCount)
                c.ascii("\",\"framing\":\""); c.ascii(framingName)
                c.ascii("\",\"code\":\""); c.hexUpper(UInt32(code), byteCount: 1)
                c.ascii("\",\"command\":\"read_without_encryption\",\"response\":false")
                if let idm { c.ascii(",\"idm\":\""); c.hex(idm); c.byte(0x22) }
            }
        }
        return true
    }
}
