import Testing
@testable import NFCScope

private func isJSONSafe(_ s: String) -> Bool {
    s.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x5C }
}

private func name(_ cla: UInt8, _ ins: UInt8, _ p1: UInt8 = 0, _ p2: UInt8 = 0) -> String {
    instructionName(cla: cla, ins: ins, p1: p1, p2: p2).description
}

@Suite struct APDUNamesTests {
    @Test func interindustry() {
        #expect(name(0x00, 0xA4, 0x04) == "SELECT")
        #expect(name(0x00, 0xB2, 0x01, 0x0C) == "READ RECORD(S)")
        #expect(name(0x00, 0xB0) == "READ BINARY")
        #expect(name(0x00, 0xC0) == "GET RESPONSE")
        #expect(name(0x00, 0x20) == "VERIFY")
        #expect(name(0x00, 0x84) == "GET CHALLENGE")
        #expect(name(0x00, 0x88) == "INTERNAL AUTHENTICATE")
        #expect(name(0x00, 0x82) == "EXTERNAL AUTHENTICATE")
        #expect(name(0x00, 0x70) == "MANAGE CHANNEL")
        #expect(name(0x0C, 0xD6) == "UPDATE BINARY")   // secure messaging class
        #expect(name(0x10, 0x2A) == "PERFORM SECURITY OPERATION")   // chained
        #expect(name(0x41, 0xCA) == "GET DATA")       // further interindustry
        #expect(name(0x00, 0xE2) == "APPEND RECORD")
        #expect(name(0x00, 0x33) == "COMPARE")
        #expect(name(0x00, 0x86) == "GENERAL AUTHENTICATE")
        #expect(name(0x00, 0x12 + 1) == "UNKNOWN")
    }

    @Test func emvAndPlatform() {
        #expect(name(0x80, 0xA8) == "GET PROCESSING OPTIONS")
        #expect(name(0x80, 0xAE, 0x80) == "GENERATE AC")
        #expect(name(0x80, 0x2A, 0x8E, 0x80) == "COMPUTE CRYPTOGRAPHIC CHECKSUM")
        #expect(name(0x80, 0xCA, 0x9F, 0x36) == "GET DATA")
        #expect(name(0x80, 0xCA, 0x01, 0x01) == "GET VAS DATA")
        #expect(name(0x84, 0x1E) == "APPLICATION BLOCK")
        #expect(name(0x84, 0x18) == "APPLICATION UNBLOCK")
        #expect(name(0x84, 0x16) == "CARD BLOCK")
        #expect(name(0x84, 0x24) == "PIN CHANGE/UNBLOCK")
        #expect(name(0x80, 0x50) == "INITIALIZE UPDATE")
        #expect(name(0x84, 0x82) == "EXTERNAL AUTHENTICATE")
        #expect(name(0x80, 0xE6) == "INSTALL")
        #expect(name(0x80, 0xE8) == "LOAD")
        #expect(name(0x80, 0xE4) == "DELETE")
        #expect(name(0x80, 0xF2) == "GET STATUS")
        #expect(name(0x80, 0xE2) == "STORE DATA")
        #expect(name(0x80, 0xD8) == "PUT KEY")
        // ISO instruction in a proprietary 8x class falls back to the ISO name.
        #expect(name(0x84, 0xB2) == "READ RECORD(S)")
        #expect(name(0xA0, 0xA4) == "UNKNOWN")
        #expect(name(0xFF, 0xCA) == "UNKNOWN")
    }

    @Test func desfire() {
        #expect(name(0x90, 0x60) == "GET VERSION")
        #expect(name(0x90, 0x5A) == "SELECT APPLICATION")
        #expect(name(0x90, 0x6A) == "GET APPLICATION IDS")
        #expect(name(0x90, 0xAA) == "AUTHENTICATE AES")
        #expect(name(0x90, 0x0A) == "AUTHENTICATE")
        #expect(name(0x90, 0xBD) == "READ DATA")
        #expect(name(0x90, 0xAF) == "ADDITIONAL FRAME")
        #expect(name(0x90, 0xF5) == "GET FILE SETTINGS")
        #expect(name(0x90, 0xA4) == "UNKNOWN")
    }

    @Test func allNamesAreJSONSafeUppercase() {
        for cla in 0...255 {
            for ins in 0...255 {
                for p1: UInt8 in [0x00, 0x01] {
                    let s = name(UInt8(cla), UInt8(ins), p1)
                    #expect(!s.isEmpty && isJSONSafe(s) && s == s.uppercased())
                }
            }
        }
    }

    @Test func selectMeaning() {
        #expect(selectDescription(p1: 0x04, p2: 0x00) == "by DF name, first or only occurrence, return FCI")
        #expect(selectDescription(p1: 0x00, p2: 0x0C) == "by file identifier (MF, DF or EF), first or only occurrence, no response data")
        #expect(selectDescription(p1: 0x04, p2: 0x02) == "by DF name, next occurrence, return FCI")
        #expect(selectDescription(p1: 0x08, p2: 0x04) == "by path from MF, first or only occurrence, return FCP")
        #expect(selectDescription(p1: 0x09, p2: 0x09) == "by path from current DF, last occurrence, return FMD")
        #expect(selectDescription(p1: 0x03, p2: 0x03).hasPrefix("parent DF of current DF, previous occurrence"))
        #expect(selectDescription(p1: 0x01, p2: 0x00).hasPrefix("child DF"))
        #expect(selectDescription(p1: 0x02, p2: 0x00).hasPrefix("EF under current DF"))
        #expect(selectDescription(p1: 0x77, p2: 0x10) == "RFU selection method, first or only occurrence, return FCI, proprietary P2 bits set")
        for p1 in 0...255 {
            for p2 in 0...255 { #expect(isJSONSafe(selectDescription(p1: UInt8(p1), p2: UInt8(p2)))) }
        }
    }

    @Test func readRecordMeaning() {
        #expect(readRecordDescription(p1: 0x01, p2: 0x1C) == "record 1, SFI 3")
        #expect(readRecordDescription(p1: 0x02, p2: 0x0D) == "records 2 to last, SFI 1")
        #expect(readRecordDescription(p1: 0x02, p2: 0x0E) == "records last to 2, SFI 1")
        #expect(readRecordDescription(p1: 0x05, p2: 0x04) == "record 5, current EF")
        #expect(readRecordDescription(p1: 0x01, p2: 0xFC) == "record 1, SFI 31 (RFU)")
        #expect(readRecordDescription(p1: 0x7A, p2: 0x0A) == "record id 7A next occurrence, SFI 1")
        #expect(readRecordDescription(p1: 0x01, p2: 0x0F) == "record 1 (RFU mode), SFI 1")
    }
}

@Suite struct APDUStatusWordTests {
    @Test func exact() {
        #expect(statusWordText(0x9000) == "Normal processing")
        #expect(statusWordText(0x6A82) == "File or application not found")
        #expect(statusWordText(0x6982) == "Security status not satisfied")
        #expect(statusWordText(0x6283) == "Selected file invalidated")
        #expect(statusWordText(0x6D00) == "Instruction code not supported or invalid")
        #expect(statusWordText(0x9100) == "DESFire operation OK")
        #expect(statusWordText(0x91AF) == "DESFire additional frame expected")
    }

    @Test func patterns() {
        #expect(statusWordText(0x611C) == "Normal processing, 28 more bytes available")
        #expect(statusWordText(0x6100) == "Normal processing, 256 more bytes available")
        #expect(statusWordText(0x6C10) == "Wrong Le field, exact length 16")
        #expect(statusWordText(0x63C2) == "Verification failed, 2 retries left")
        #expect(statusWordText(0x63C1) == "Verification failed, 1 retry left")
        #expect(statusWordText(0x6FFF) == "No precise diagnosis")
        #expect(statusWordText(0x6A99) == "Wrong parameters P1-P2")
        #expect(statusWordText(0x6205) == "Warning, triggering by the card (5)")
        #expect(statusWordText(0x62F0) == "Warning, memory unchanged")
        #expect(statusWordText(0x63F0) == "Warning, memory changed")
        #expect(statusWordText(0x9A01) == "Application-specific status")
        #expect(statusWordText(0x9155) == "DESFire status")
        #expect(statusWordText(0x6000) == "Invalid status word")
        #expect(statusWordText(0x1234) == "Invalid status word")
    }

    @Test func categories() {
        #expect(statusWordCategory(0x9000).description == "normal")
        #expect(statusWordCategory(0x6110).description == "normal")
        #expect(statusWordCategory(0x6283).description == "warning")
        #expect(statusWordCategory(0x63C2).description == "warning")
        #expect(statusWordCategory(0x6581).description == "execution-error")
        #expect(statusWordCategory(0x6A82).description == "checking-error")
        #expect(statusWordCategory(0x6E00).description == "checking-error")
        #expect(statusWordCategory(0x91AF).description == "application")
        #expect(statusWordCategory(0x9001).description == "application")
        #expect(statusWordCategory(0x0000).description == "invalid")
    }

    @Test func everyTextIsJSONSafe() {
        let out = OutputBuffer()
        for sw in 0...0xFFFF {
            writeStatusWordText(UInt16(sw), to: out)
            out.byte(0x0A)
        }
        let lines = out.string.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 0x10001)
        #expect(lines.dropLast().allSatisfy { !$0.isEmpty && isJSONSafe(String($0)) })
    }
}
