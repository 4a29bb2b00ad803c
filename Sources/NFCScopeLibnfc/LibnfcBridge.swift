// The one file that talks to libnfc (the CNfc system library, Debian's libnfc-dev).
// It turns libnfc's C world (a context, devices found by connection string, lists
// terminated by zero) into plain values; the commands above it never see a pointer.
//
// libnfc finds readers on USB by itself and takes others from its configuration
// files and from the LIBNFC_DEVICE environment variable (`pn532_uart:/dev/ttyUSB0`).
import CNfc

/// A reader libnfc found, with what it says it can do as an initiator.
public struct ReaderDescription: Sendable, Equatable {
    public var connstring: String
    /// The device's name as libnfc reports it once opened; nil when it could not be opened.
    public var name: String?
    /// Modulations with the baud rates of each, in libnfc's words ("ISO/IEC 14443A", "106 kbps").
    public var modulations: [(name: String, baudRates: [String])]
    /// Why the device could not be opened (busy, gone, not answering), when it could not.
    public var openError: String?

    public static func == (a: ReaderDescription, b: ReaderDescription) -> Bool {
        a.connstring == b.connstring && a.name == b.name && a.openError == b.openError
            && a.modulations.map(\.name) == b.modulations.map(\.name)
            && a.modulations.map(\.baudRates) == b.modulations.map(\.baudRates)
    }
}

public struct ReaderError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

public enum LibnfcBridge {
    /// At most this many readers are listed.
    static let maximumDevices = 16

    /// libnfc's version string.
    public static var version: String { String(cString: nfc_version()) }

    /// The readers libnfc finds, each opened briefly to ask for its name and modulations.
    public static func listReaders() -> Result<[ReaderDescription], ReaderError> {
        var context: OpaquePointer?
        nfc_init(&context)
        guard let context else {
            return .failure(ReaderError(message: "libnfc could not be initialised (out of memory or a broken configuration)"))
        }
        defer { nfc_exit(context) }
        // nfc_connstring is a fixed C array of NFC_BUFSIZE_CONNSTRING characters.
        let stride = MemoryLayout<nfc_connstring>.stride
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: stride * maximumDevices, alignment: 8)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: stride * maximumDevices)
        let found = nfc_list_devices(context, buffer.assumingMemoryBound(to: nfc_connstring.self), maximumDevices)
        var readers: [ReaderDescription] = []
        for i in 0..<min(found, maximumDevices) {
            let connstringPointer = (buffer + i * stride).assumingMemoryBound(to: CChar.self)
            let connstring = String(cString: connstringPointer)
            var reader = ReaderDescription(connstring: connstring, name: nil, modulations: [], openError: nil)
            guard let device = nfc_open(context, connstringPointer) else {
                reader.openError = "could not be opened (in use by another program, unplugged, or not answering)"
                readers.append(reader)
                continue
            }
            reader.name = String(cString: nfc_device_get_name(device))
            reader.modulations = modulations(of: device)
            nfc_close(device)
            readers.append(reader)
        }
        return .success(readers)
    }

    private static func modulations(of device: OpaquePointer) -> [(name: String, baudRates: [String])] {
        var result: [(name: String, baudRates: [String])] = []
        var types: UnsafePointer<nfc_modulation_type>?
        guard nfc_device_get_supported_modulation(device, N_INITIATOR, &types) >= 0, let types else { return [] }
        var i = 0
        // Both lists end with a zero entry; the bound only guards against a missing one.
        while i < 32, types[i].rawValue != 0 {
            let type = types[i]
            var rates: [String] = []
            var baud: UnsafePointer<nfc_baud_rate>?
            if nfc_device_get_supported_baud_rate(device, type, &baud) >= 0, let baud {
                var j = 0
                while j < 16, baud[j] != NBR_UNDEFINED {
                    rates.append(String(cString: str_nfc_baud_rate(baud[j])))
                    j += 1
                }
            }
            result.append((String(cString: str_nfc_modulation_type(type)), rates))
            i += 1
        }
        return result
    }
}
