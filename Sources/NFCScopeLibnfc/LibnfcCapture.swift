// `nfcscope capture`'s side of libnfc (with LibnfcBridge.swift, the only files that
// see libnfc's pointers): one opened reader as an initiator, polling for one
// technology at a time, exchanging bytes with the target it found, and turning the
// chip's report of an activation into plain values. Also the capture's process
// plumbing: its own Ctrl-C flag (a `SignalFlag`) and a thread to decode on.
//
// What a PN53x-class reader shows through libnfc is what the chip reports, not the
// air: it runs anticollision, RATS/ATTRIB, ISO-DEP block framing, chaining, WTX and
// CRCs itself. `PolledTarget.frames` are therefore the activation answers as the chip
// reported them (as PN53xAirRecovery reads them from libnfc logs), never frames the
// chip may have sent but did not report.
import NFCScope
import CNfc
#if canImport(Glibc)
import Glibc
#endif

/// A technology and bit rate to poll with.
public struct PollModulation: Sendable, Equatable {
    public var tech: Tech
    public var kbps: Int

    public init(tech: Tech, kbps: Int) {
        self.tech = tech
        self.kbps = kbps
    }

    /// libnfc's words for it ("ISO/IEC 14443A", "FeliCa").
    public var name: String {
        switch tech {
        case .nfcA: "ISO/IEC 14443A"
        case .nfcB: "ISO/IEC 14443-4B"
        case .nfcF: "FeliCa"
        case .nfcV: "ISO/IEC 15693"
        case .unknown: "unknown"
        }
    }
}

/// A target the reader activated, as libnfc reports it.
public struct PolledTarget: Sendable {
    public var modulation: PollModulation
    /// The activation as air frames without CRC, in order: NFC-A ATQA (air byte order),
    /// SAK, ATS; NFC-B ATQB and the ATTRIB answer's first byte (all libnfc keeps of it);
    /// FeliCa the polling request (LEN included) and its answer.
    public var frames: [(dir: Direction, bytes: [UInt8])]
    /// NFC-A UID, NFC-B PUPI, FeliCa IDm.
    public var identifier: [UInt8]
    /// ISO 14443-4 (ISO-DEP) was activated: exchanges are APDUs in I-blocks.
    public var isoDEP: Bool
    /// FeliCa: PMm and the system code the polling answer carried (nil when it carried none).
    public var felicaPMm: [UInt8] = []
    public var felicaSystemCode: UInt16?
    /// NFC-A SAK.
    public var sak: UInt8?
    /// One line in words for the operator ("ISO/IEC 14443A 106 kbps UID 08A1B2C3 ATQA 0004 SAK 20").
    public var summary: String
}

/// An open reader in initiator mode.
public final class LibnfcReader {
    private let nfc: Libnfc
    private let context: OpaquePointer
    private let device: OpaquePointer
    public let connstring: String
    public let name: String
    /// Modulations the device can poll with (libnfc's list), with their bit rates.
    public let supported: [PollModulation]

    /// Opens `connstring` (nil: the first reader libnfc finds) and makes it an initiator
    /// that tries each polling once (no infinite select), so the capture can stop between polls.
    public init(connstring: String?) throws(ReaderError) {
        let nfc = try Libnfc.loaded.get()
        var context: OpaquePointer?
        nfc.initialize(&context)
        guard let context else {
            throw ReaderError(message: "libnfc could not be initialised (out of memory or a broken configuration)")
        }
        let opened: OpaquePointer?
        if let connstring {
            opened = connstring.withCString { nfc.open(context, $0) }
        } else {
            opened = nfc.open(context, nil)
        }
        guard let opened else {
            nfc.exit(context)
            throw ReaderError(message: connstring.map { "\($0): the reader could not be opened (no such device, in use by another program, unplugged, or not answering)" }
                ?? "no reader found (libnfc \(LibnfcBridge.version); a serial reader is named with --device pn532_uart:/dev/ttyUSB0 or LIBNFC_DEVICE)")
        }
        if nfc.initiatorInit(opened) < 0 {
            let message = Self.describe(opened, nfc.lastError(opened), nfc)
            let name = Libnfc.string(nfc.deviceConnstring(opened))
            nfc.close(opened)
            nfc.exit(context)
            throw ReaderError(message: "\(name): could not be set up as a reader: \(message)")
        }
        // Each polling tries once (no infinite select), so the capture can stop between polls.
        _ = nfc.setPropertyBool(opened, NP_INFINITE_SELECT, false)
        self.nfc = nfc
        self.context = context
        device = opened
        self.connstring = Libnfc.string(nfc.deviceConnstring(opened))
        name = Libnfc.string(nfc.deviceName(opened))
        var modulations: [PollModulation] = []
        var types: UnsafePointer<nfc_modulation_type>?
        if nfc.supportedModulations(opened, N_INITIATOR, &types) >= 0, let types {
            var i = 0
            while i < 32, types[i].rawValue != 0 {
                let tech: Tech? = switch types[i] {
                case NMT_ISO14443A: .nfcA
                case NMT_ISO14443B: .nfcB
                case NMT_FELICA: .nfcF
                default: nil
                }
                var baud: UnsafePointer<nfc_baud_rate>?
                if let tech, nfc.supportedBaudRates(opened, types[i], &baud) >= 0, let baud {
                    var j = 0
                    while j < 16, baud[j] != NBR_UNDEFINED {
                        switch baud[j] {
                        case NBR_106: modulations.append(PollModulation(tech: tech, kbps: 106))
                        case NBR_212: modulations.append(PollModulation(tech: tech, kbps: 212))
                        case NBR_424: modulations.append(PollModulation(tech: tech, kbps: 424))
                        default: break
                        }
                        j += 1
                    }
                }
                i += 1
            }
        }
        supported = modulations
    }

    deinit { close() }

    private var closed = false

    /// Field off, device closed, libnfc released. Safe to call twice.
    public func close() {
        guard !closed else { return }
        closed = true
        _ = nfc.setPropertyBool(device, NP_ACTIVATE_FIELD, false)
        nfc.close(device)
        nfc.exit(context)
    }

    /// Polls once for `modulation`: the target found, nil when none answered.
    public func poll(_ modulation: PollModulation) -> Result<PolledTarget?, ReaderError> {
        var nm = nfc_modulation()
        switch modulation.tech {
        case .nfcA: nm.nmt = NMT_ISO14443A
        case .nfcB: nm.nmt = NMT_ISO14443B
        case .nfcF: nm.nmt = NMT_FELICA
        default: return .failure(ReaderError(message: "libnfc \(LibnfcBridge.version) cannot poll for \(modulation.name)"))
        }
        nm.nbr = modulation.kbps == 424 ? NBR_424 : modulation.kbps == 212 ? NBR_212 : NBR_106
        // The initiator data libnfc would use by itself, given here so that what was sent is known:
        // FeliCa polling for any system (FFFF) asking for the system code (request code 01,
        // one time slot); NFC-B AFI 00 (all families).
        let initData: [UInt8] = switch modulation.tech {
        case .nfcF: Self.felicaPolling
        case .nfcB: [0x00]
        default: []
        }
        var target = nfc_target()
        let found = initData.withUnsafeBufferPointer { data in
            nfc.selectPassiveTarget(device, nm, data.isEmpty ? nil : data.baseAddress, data.count, &target)
        }
        if found < 0 { return .failure(error(found, doing: "polling for \(modulation.name)")) }
        if found == 0 { return .success(nil) }
        return .success(Self.describe(target, modulation, polling: initData))
    }

    /// FeliCa polling: command 00, system code FFFF, request code 01, time slot 00 (JIS X 6319-4).
    static let felicaPolling: [UInt8] = [0x00, 0xFF, 0xFF, 0x01, 0x00]

    /// Sends `bytes` to the selected target and returns its answer (libnfc's easy framing:
    /// an APDU for an ISO-DEP target, a frame without CRC otherwise).
    public func transceive(_ bytes: [UInt8], timeoutMs: Int32 = 2000) -> Result<[UInt8], ReaderError> {
        var answer = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeBufferPointer { tx in
            answer.withUnsafeMutableBufferPointer { rx in
                nfc.transceiveBytes(device, tx.baseAddress, tx.count, rx.baseAddress, rx.count, Int32(timeoutMs))
            }
        }
        if n < 0 { return .failure(error(n, doing: "exchanging with the card")) }
        return .success(Array(answer.prefix(Int(n))))
    }

    /// Switches the RF field off or on.
    public func setField(_ on: Bool) -> ReaderError? {
        let status = nfc.setPropertyBool(device, NP_ACTIVATE_FIELD, on)
        return status < 0 ? error(status, doing: on ? "switching the field on" : "switching the field off") : nil
    }

    /// Releases the target (DESELECT / HLTA as the chip does it).
    public func release() {
        _ = nfc.deselectTarget(device)
    }

    private func error(_ code: Int32, doing what: String) -> ReaderError {
        ReaderError(message: "\(what): \(Self.describe(device, code, nfc))")
    }

    /// libnfc's error in words, with its code and libnfc's own text.
    static func describe(_ device: OpaquePointer, _ code: Int32, _ nfc: Libnfc) -> String {
        let words: String = switch code {
        case NFC_EIO: "input/output error (the reader stopped answering or was unplugged)"
        case NFC_EINVARG: "invalid argument"
        case NFC_EDEVNOTSUPP: "operation not supported by the device"
        case NFC_ENOTSUCHDEV: "no such device"
        case NFC_EOVFLOW: "buffer overflow (the answer was too long)"
        case NFC_ETIMEOUT: "timeout (the card did not answer)"
        case NFC_EOPABORTED: "operation aborted"
        case NFC_ENOTIMPL: "not implemented by the driver"
        case NFC_ETGRELEASED: "target released (the card left the field)"
        case NFC_ERFTRANS: "RF transmission error (no answer or a garbled one: the card may have left the field)"
        case NFC_EMFCAUTHFAIL: "MIFARE Classic authentication failed"
        case NFC_ESOFT: "software error in libnfc"
        case NFC_ECHIP: "the reader chip reported an error"
        default: "libnfc error"
        }
        return "\(words) [libnfc \(code): \(Libnfc.string(nfc.errorText(device)))]"
    }

    private static func bytes<T>(_ tuple: T, count: Int) -> [UInt8] {
        withUnsafeBytes(of: tuple) { Array($0.prefix(count)) }
    }

    private static func describe(_ target: nfc_target, _ modulation: PollModulation, polling: [UInt8]) -> PolledTarget {
        switch modulation.tech {
        case .nfcA:
            let info = target.nti.nai
            // libnfc keeps SENS_RES as the chip reports it, most significant byte first;
            // on the air the low byte goes first (ISO/IEC 14443-3, 6.5.2).
            let atqa = bytes(info.abtAtqa, count: 2)
            let uid = bytes(info.abtUid, count: min(info.szUidLen, 10))
            var frames: [(dir: Direction, bytes: [UInt8])] = [(.card, [atqa[1], atqa[0]]), (.card, [info.btSak])]
            // libnfc keeps the ATS without its length byte TL (which counts itself).
            let atsLength = min(info.szAtsLen, 254)
            let isoDEP = info.btSak & 0x20 != 0 && atsLength > 0
            var summary = "\(modulation.name) \(modulation.kbps) kbps UID \(hexUpperString(uid)) ATQA \(hexUpperString(atqa)) SAK \(hexUpperString([info.btSak]))"
            if atsLength > 0 {
                let ats = [UInt8(atsLength + 1)] + bytes(info.abtAts, count: atsLength)
                frames.append((.card, ats))
                summary += " ATS \(hexUpperString(ats))"
            }
            return PolledTarget(modulation: modulation, frames: frames, identifier: uid, isoDEP: isoDEP,
                                sak: info.btSak, summary: summary)
        case .nfcB:
            let info = target.nti.nbi
            let pupi = bytes(info.abtPupi, count: 4)
            let atqb = [0x50] + pupi + bytes(info.abtApplicationData, count: 4) + bytes(info.abtProtocolInfo, count: 3)
            let attrib = [info.ui8CardIdentifier]
            return PolledTarget(modulation: modulation, frames: [(.card, atqb), (.card, attrib)], identifier: pupi,
                                isoDEP: true,
                                summary: "\(modulation.name) \(modulation.kbps) kbps PUPI \(hexUpperString(pupi)) ATQB \(hexUpperString(atqb))")
        default:
            let info = target.nti.nfi
            let idm = bytes(info.abtId, count: 8), pmm = bytes(info.abtPad, count: 8)
            // The polling answer: LEN, response code 01, IDm, PMm, and the system code when asked for.
            var answer = [UInt8(truncatingIfNeeded: info.szLen), info.btResCode] + idm + pmm
            var systemCode: UInt16?
            if info.szLen >= 20 {
                let sc = bytes(info.abtSysCode, count: 2)
                answer += sc
                systemCode = UInt16(sc[0]) << 8 | UInt16(sc[1])
            }
            var summary = "\(modulation.name) \(modulation.kbps) kbps IDm \(hexUpperString(idm)) PMm \(hexUpperString(pmm))"
            if let systemCode { summary += " system \(hexUpperString([UInt8(systemCode >> 8), UInt8(systemCode & 0xFF)]))" }
            return PolledTarget(modulation: modulation,
                                frames: [(.reader, [UInt8(polling.count + 1)] + polling), (.card, answer)],
                                identifier: idm, isoDEP: false, felicaPMm: pmm, felicaSystemCode: systemCode,
                                summary: summary)
        }
    }
}

/// Bytes as upper-case hex digits without separators.
public func hexUpperString(_ bytes: [UInt8]) -> String {
    let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
    var ascii: [UInt8] = []
    ascii.reserveCapacity(bytes.count * 2)
    for b in bytes {
        ascii.append(digits[Int(b >> 4)])
        ascii.append(digits[Int(b & 15)])
    }
    return String(decoding: ascii, as: UTF8.self)
}

// MARK: Ctrl-C for a capture

/// The capture's own Ctrl-C flag. Unlike `Interruption` (which stops a decode where it
/// is), it only asks the capture to end: the decoding side reads on to the capture
/// file's last record, so nothing already captured goes undecoded.
public enum CaptureStop {
    private static let flag = SignalFlag()

    @inline(__always)
    public static var requested: Bool { flag.isRaised }

    public static func raise() { flag.raise() }
    public static func reset() { flag.lower() }

    /// Routes SIGINT and SIGTERM to this flag instead of `Interruption`'s. A second one
    /// ends the process at once (status 130): every record is already in the file.
    public static func install() {
        _ = flag
        SignalFlag.route([SIGINT, SIGTERM], restart: true) { _ in
            if CaptureStop.requested { _exit(130) }
            CaptureStop.raise()
        }
    }

    /// Blocks SIGINT and SIGTERM in the calling thread (the device thread), so that they
    /// arrive on the decoding thread and never interrupt a read of libnfc's.
    public static func blockInThisThread() { SignalFlag.block([SIGINT, SIGTERM]) }
}

// MARK: A thread

/// Runs a closure on its own thread; `join` waits for it.
public final class JoinableThread: @unchecked Sendable {
    private var thread = pthread_t()
    private let body: () -> Void

    public init(_ body: @escaping () -> Void) {
        self.body = body
    }

    /// Starts the thread; false when the system refused.
    public func start() -> Bool {
        let box = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { raw in
            let me = Unmanaged<JoinableThread>.fromOpaque(raw!).takeRetainedValue()
            me.body()
            return nil
        }, box)
        if status != 0 {
            Unmanaged<JoinableThread>.fromOpaque(box).release()
            return false
        }
        return true
    }

    public func join() {
        _ = pthread_join(thread, nil)
    }
}
