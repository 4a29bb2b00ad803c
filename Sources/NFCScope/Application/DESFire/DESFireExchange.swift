// MIFARE DESFire commands decoded, natively framed (first byte of a command its code, first
// byte of an answer its status) or in ISO wrapping (CLA 90, INS the code, status 91 xx).
//
// Facts only, from public sources:
// - NXP MIFARE DESFire EV1 (MF3ICDx21/41/81) and EV2/EV3 (MF3D(H)x2, MF3D(H)x3) product data
//   sheets: command codes and parameter layouts (file numbers, 3-byte little-endian offsets,
//   lengths and sizes, 3-byte AIDs sent least significant byte first), the GetVersion answer
//   (7 bytes hardware, 7 bytes software, then UID, batch number, production week and year in
//   BCD), the storage size byte (7 most significant bits n: 2^n bytes; least significant bit
//   set: between 2^n and 2^(n+1)), file settings (type, communication settings, access rights
//   read | write | read&write | change as nibbles), the three-pass authentication.
// - Proxmark3 (RfidResearchGroup/proxmark3 @ 1c8c3b78): `include/protocols.h` MFDES_* command
//   and status codes, `client/src/mifare/prime.c` type and protocol bytes,
//   `client/src/cmdhfmfdes.c` getCardType (product from hardware type, major and minor
//   version) and getProductTypeStr (type byte 01/08 native IC, 81/83 microcontroller
//   implementation, 91 Java card applet, A1 HCE; NXP AN12343).
// Authentication exchanges carry ciphertext: they are named by step and shown as opaque
// bytes, never as the random numbers inside them.

/// One DESFire exchange as the card session read it. The views point into the exchange.
public struct DESFireExchange: Sendable {
    public enum Framing: UInt8, Sendable {
        case native
        case isoWrapped
    }

    public var framing: Framing
    /// The native command code (the INS of the wrapped form).
    public var code: UInt8
    /// The native parameters (the data of the wrapped form).
    public var parameters: ByteView
    /// The native status (SW2 of a 91 xx answer); nil when there is no answer.
    public var status: UInt8?
    /// The answer without its status.
    public var answer: ByteView
    /// For ADDITIONAL FRAME (AF): the command it continues; this exchange is its `frame`th.
    public var continued: UInt8?
    public var frame: Int

    /// The command whose layout applies: the continued one for ADDITIONAL FRAME.
    var effectiveCode: UInt8 { continued ?? code }
}

enum DESFire {
    static let additionalFrame: UInt8 = 0xAF
    static let statusOK: UInt8 = 0x00

    /// Authentication commands: what the method is called.
    static func authenticationMethod(_ code: UInt8) -> StaticString? {
        switch code {
        case 0x0A: "legacy DES/2K3DES"
        case 0x1A: "ISO 3DES/3K3DES"
        case 0xAA: "AES"
        case 0x71: "EV2 first"
        case 0x77: "EV2 non-first"
        default: nil
        }
    }

    /// Parameter bytes a native command carries, when its layout fixes them (nil: variable).
    /// Used to recognise natively framed exchanges; data sheets' command layouts.
    static func parameterCount(_ code: UInt8) -> ClosedRange<Int>? {
        switch code {
        case 0x60, 0x6A, 0x6F, 0x6D, 0x61, 0x45, 0x6E, 0x51, 0xC7, 0xA7, 0xFC: 0...0
        case 0x5A, 0xDA: 3...3
        case 0x0A, 0x1A, 0xAA, 0x77, 0x64, 0xF5, 0x6C, 0xDF, 0xEB: 1...1
        case 0x71: 2...8
        case 0xBD, 0xBB: 7...7
        case 0x3D, 0x3B: 8...Int.max
        case 0x0C, 0xDC, 0x1C: 5...Int.max
        case 0xCA: 5...Int.max
        case 0xC4, 0x54, 0x5C, 0x5F: 2...Int.max
        case 0xCD, 0xCB: 7...9
        case 0xCC: 17...17
        case 0xC0, 0xC1: 10...12
        case 0x3C: 1...1
        case additionalFrame: 0...Int.max
        default: nil
        }
    }

    /// Whether the exchange reads as a natively framed DESFire exchange: a command code the
    /// data sheets define, with its parameter count, answered by a DESFire status; an error
    /// status comes alone. `continuing`: the previous answer was AF, so AF may follow.
    static func isNativeExchange(command: ByteView, response: ByteView, continuing: Bool) -> Bool {
        guard let code = command.byte(0), let status = response.byte(0),
              let count = parameterCount(code), count.contains(command.count - 1),
              desfireStatusText(status) != nil else { return false }
        if code == additionalFrame && !continuing { return false }
        if status != statusOK && status != additionalFrame && response.count != 1 { return false }
        // GetVersion: each of the first two answers is AF + 7 bytes.
        if code == 0x60 && !(status == additionalFrame && response.count == 8) && response.count != 1 { return false }
        return true
    }

    // MARK: GetVersion

    /// Product named from the hardware type, major and minor version (the combinations
    /// Proxmark3's getCardType lists; nothing else is named).
    static func productName(type: UInt8, major: UInt8, minor: UInt8) -> StaticString? {
        switch (type, major, minor) {
        case (0x01, 0x00, 0x02): "MIFARE DESFire (MF3ICD40)"
        case (0x01, 0x01, 0x00): "MIFARE DESFire EV1"
        case (0x01, 0x12, 0x00): "MIFARE DESFire EV2"
        case (0x01, 0x22, 0x00): "MIFARE DESFire EV2 XL"
        case (0x01, 0x33, 0x00): "MIFARE DESFire EV3"
        case (0x01, 0xA0, 0x00): "MIFARE DUOX"
        case (0x08, 0x30, 0x00): "MIFARE DESFire Light"
        case (0x02, 0x11, 0x00): "MIFARE Plus EV1"
        case (0x02, 0x22, 0x00): "MIFARE Plus EV2"
        case (0x04, 0x30, 0x00): "NTAG 424 DNA"
        default: nil
        }
    }

    static func typeName(_ type: UInt8) -> StaticString? {
        switch type {
        case 0x01: "MIFARE DESFire native IC"
        case 0x08: "MIFARE DESFire Light native IC"
        case 0x02: "MIFARE Plus"
        case 0x03: "MIFARE Ultralight"
        case 0x04: "NTAG"
        case 0x81, 0x83: "MIFARE DESFire implementation on a microcontroller"
        case 0x91: "MIFARE DESFire applet on a Java card or secure element"
        case 0xA1: "MIFARE DESFire HCE (MIFARE 2GO)"
        default: nil
        }
    }

    static func protocolName(_ p: UInt8, hardware: Bool) -> StaticString? {
        switch p {
        case 0x05: hardware ? "ISO/IEC 14443-2 and -3" : "ISO/IEC 14443-3 and -4"
        default: nil
        }
    }

    // MARK: File settings

    static func fileTypeName(_ t: UInt8) -> StaticString? {
        switch t {
        case 0x00: "standard data file"
        case 0x01: "backup data file"
        case 0x02: "value file"
        case 0x03: "linear record file"
        case 0x04: "cyclic record file"
        case 0x05: "transaction MAC file"
        default: nil
        }
    }

    static func communicationName(_ c: UInt8) -> StaticString {
        switch c & 0x03 {
        case 0x01: "MACed"
        case 0x03: "fully enciphered"
        default: "plain"
        }
    }
}

/// Meaning of a DESFire status (native, or SW2 after 91). Shared with the 91xx status words.
func desfireStatusText(_ code: UInt8) -> StaticString? {
    switch code {
    case 0x00: "DESFire operation OK"
    case 0x0C: "DESFire no changes"
    case 0x0E: "DESFire out of EEPROM memory"
    case 0x1C: "DESFire illegal command code"
    case 0x1E: "DESFire integrity error (CRC or MAC)"
    case 0x40: "DESFire no such key"
    case 0x7E: "DESFire length error"
    case 0x9D: "DESFire permission denied"
    case 0x9E: "DESFire parameter error"
    case 0xA0: "DESFire application not found"
    case 0xA1: "DESFire application integrity error"
    case 0xAE: "DESFire authentication error"
    case 0xAF: "DESFire additional frame expected"
    case 0xBE: "DESFire boundary error"
    case 0xC1: "DESFire PICC integrity error"
    case 0xCA: "DESFire command aborted"
    case 0xCD: "DESFire PICC disabled"
    case 0xCE: "DESFire count error"
    case 0xDE: "DESFire duplicate error"
    case 0xEE: "DESFire EEPROM error"
    case 0xF0: "DESFire file not found"
    case 0xF1: "DESFire file integrity error"
    default: nil
    }
}

extension ByteView {
    /// 3-byte little-endian number at `i` (DESFire offsets, lengths, sizes).
    func u24le(_ i: Int) -> Int? {
        guard let a = byte(i), let b = byte(i + 1), let c = byte(i + 2) else { return nil }
        return Int(a) | Int(b) << 8 | Int(c) << 16
    }
}
