// The one file that talks to libnfc (the CNfc system library, Debian's libnfc-dev).
// It turns libnfc's C world (a context, devices found by connection string, lists
// terminated by zero) into plain values; the commands above it never see a pointer.
//
// libnfc finds readers on USB by itself and takes others from its configuration
// files and from the LIBNFC_DEVICE environment variable (`pn532_uart:/dev/ttyUSB0`).
//
// libnfc is loaded (dlopen) when a command first needs a reader (`devices`,
// `capture`), not linked: the executable then starts without loading it and libusb
// (a decode of a short capture spent a tenth of its time in the dynamic loader), and
// a machine without libnfc still decodes. CNfc gives the types and constants only.
import CNfc
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The libnfc functions nfcscope calls, looked up in the library on first use.
struct Libnfc {
    typealias Device = OpaquePointer
    let initialize: @convention(c) (UnsafeMutablePointer<OpaquePointer?>?) -> Void
    let exit: @convention(c) (OpaquePointer?) -> Void
    let open: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?) -> Device?
    let close: @convention(c) (Device?) -> Void
    /// The connection strings go to an array of `nfc_connstring` (fixed C arrays of
    /// NFC_BUFSIZE_CONNSTRING characters, which a C function type cannot spell in Swift).
    let listDevices: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int) -> Int
    let initiatorInit: @convention(c) (Device?) -> Int32
    let selectPassiveTarget: @convention(c) (Device?, nfc_modulation, UnsafePointer<UInt8>?, Int,
                                             UnsafeMutablePointer<nfc_target>?) -> Int32
    let deselectTarget: @convention(c) (Device?) -> Int32
    let transceiveBytes: @convention(c) (Device?, UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?, Int,
                                         Int32) -> Int32
    let setPropertyBool: @convention(c) (Device?, nfc_property, Bool) -> Int32
    let lastError: @convention(c) (Device?) -> Int32
    let errorText: @convention(c) (Device?) -> UnsafePointer<CChar>?
    let deviceName: @convention(c) (Device?) -> UnsafePointer<CChar>?
    let deviceConnstring: @convention(c) (Device?) -> UnsafePointer<CChar>?
    let supportedModulations: @convention(c) (Device?, nfc_mode,
                                              UnsafeMutablePointer<UnsafePointer<nfc_modulation_type>?>?) -> Int32
    let supportedBaudRates: @convention(c) (Device?, nfc_modulation_type,
                                            UnsafeMutablePointer<UnsafePointer<nfc_baud_rate>?>?) -> Int32
    let versionText: @convention(c) () -> UnsafePointer<CChar>?
    let modulationTypeName: @convention(c) (nfc_modulation_type) -> UnsafePointer<CChar>?
    let baudRateName: @convention(c) (nfc_baud_rate) -> UnsafePointer<CChar>?

    /// The library's functions, or why it could not be loaded (loaded once).
    static let loaded: Result<Libnfc, ReaderError> = load()

    /// Debian's libnfc6 (and the development package's link), then macOS's names.
    static let libraryNames = ["libnfc.so.6", "libnfc.so", "libnfc.6.dylib", "libnfc.dylib"]

    private static func load() -> Result<Libnfc, ReaderError> {
        var handle: UnsafeMutableRawPointer?
        for name in libraryNames where handle == nil { handle = dlopen(name, RTLD_NOW | RTLD_LOCAL) }
        guard let handle else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(ReaderError(message: "libnfc could not be loaded (install libnfc6): \(reason)"))
        }
        func function<F>(_ name: String) throws(ReaderError) -> F {
            guard let address = dlsym(handle, name) else {
                throw ReaderError(message: "libnfc has no function \(name) (libnfc 1.8 or later is needed)")
            }
            return unsafeBitCast(address, to: F.self)
        }
        do throws(ReaderError) {
            return .success(Libnfc(
                initialize: try function("nfc_init"),
                exit: try function("nfc_exit"),
                open: try function("nfc_open"),
                close: try function("nfc_close"),
                listDevices: try function("nfc_list_devices"),
                initiatorInit: try function("nfc_initiator_init"),
                selectPassiveTarget: try function("nfc_initiator_select_passive_target"),
                deselectTarget: try function("nfc_initiator_deselect_target"),
                transceiveBytes: try function("nfc_initiator_transceive_bytes"),
                setPropertyBool: try function("nfc_device_set_property_bool"),
                lastError: try function("nfc_device_get_last_error"),
                errorText: try function("nfc_strerror"),
                deviceName: try function("nfc_device_get_name"),
                deviceConnstring: try function("nfc_device_get_connstring"),
                supportedModulations: try function("nfc_device_get_supported_modulation"),
                supportedBaudRates: try function("nfc_device_get_supported_baud_rate"),
                versionText: try function("nfc_version"),
                modulationTypeName: try function("str_nfc_modulation_type"),
                baudRateName: try function("str_nfc_baud_rate")))
        } catch {
            return .failure(error)
        }
    }

    /// A C string libnfc returned ("" for none).
    static func string(_ text: UnsafePointer<CChar>?) -> String { text.map { String(cString: $0) } ?? "" }
}

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

    /// libnfc's version string ("not loaded" when the library cannot be loaded).
    public static var version: String {
        guard case .success(let nfc) = Libnfc.loaded else { return "not loaded" }
        return Libnfc.string(nfc.versionText())
    }

    /// The readers libnfc finds, each opened briefly to ask for its name and modulations.
    public static func listReaders() -> Result<[ReaderDescription], ReaderError> {
        let nfc: Libnfc
        switch Libnfc.loaded {
        case .success(let loaded): nfc = loaded
        case .failure(let error): return .failure(error)
        }
        var context: OpaquePointer?
        nfc.initialize(&context)
        guard let context else {
            return .failure(ReaderError(message: "libnfc could not be initialised (out of memory or a broken configuration)"))
        }
        defer { nfc.exit(context) }
        // nfc_connstring is a fixed C array of NFC_BUFSIZE_CONNSTRING characters.
        let stride = MemoryLayout<nfc_connstring>.stride
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: stride * maximumDevices, alignment: 8)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: stride * maximumDevices)
        let found = nfc.listDevices(context, buffer, maximumDevices)
        var readers: [ReaderDescription] = []
        for i in 0..<min(found, maximumDevices) {
            let connstringPointer = (buffer + i * stride).assumingMemoryBound(to: CChar.self)
            let connstring = String(cString: connstringPointer)
            var reader = ReaderDescription(connstring: connstring, name: nil, modulations: [], openError: nil)
            guard let device = nfc.open(context, connstringPointer) else {
                reader.openError = "could not be opened (in use by another program, unplugged, or not answering)"
                readers.append(reader)
                continue
            }
            reader.name = Libnfc.string(nfc.deviceName(device))
            reader.modulations = modulations(of: device, nfc)
            nfc.close(device)
            readers.append(reader)
        }
        return .success(readers)
    }

    private static func modulations(of device: OpaquePointer, _ nfc: Libnfc) -> [(name: String, baudRates: [String])] {
        var result: [(name: String, baudRates: [String])] = []
        var types: UnsafePointer<nfc_modulation_type>?
        guard nfc.supportedModulations(device, N_INITIATOR, &types) >= 0, let types else { return [] }
        var i = 0
        // Both lists end with a zero entry; the bound only guards against a missing one.
        while i < 32, types[i].rawValue != 0 {
            let type = types[i]
            var rates: [String] = []
            var baud: UnsafePointer<nfc_baud_rate>?
            if nfc.supportedBaudRates(device, type, &baud) >= 0, let baud {
                var j = 0
                while j < 16, baud[j] != NBR_UNDEFINED {
                    rates.append(Libnfc.string(nfc.baudRateName(baud[j])))
                    j += 1
                }
            }
            result.append((Libnfc.string(nfc.modulationTypeName(type)), rates))
            i += 1
        }
        return result
    }
}
