// Facts about the library itself.

/// The NFCScope library: its version, as the command-line tool and the files it
/// writes (pcapng `shb_userappl`) name it.
public enum NFCScopeLibrary {
    /// "nfcscope" and the version, e.g. "nfcscope 0.1.0".
    public static let version = "nfcscope 0.1.0"
}
