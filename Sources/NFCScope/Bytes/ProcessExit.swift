// Teardown that the process's exit makes needless. `nfcscope`'s `main` exits as soon as
// its command is done; freeing what a decode built before that (the JSON Lines writer's
// rendered-value cache: ~1,800 blocks, 0.35 M instructions of `free` and releases on the
// 100,000-frame capture; the last file's stages, 0.1 M) is work the exit does anyway.
// Kept with the other code that keeps memory by hand.

public enum ProcessExit {
    private static let flag = SignalFlag()

    /// Said by `main` before it runs the command: the process exits after it, so what
    /// `keep` is handed may live until then.
    public static func follows() { flag.raise() }

    /// Whether `follows()` was said (tests run commands in the test process: there
    /// nothing is kept).
    public static var isNext: Bool { flag.isRaised }

    /// Leaves `object` alive until the process exits, after `follows()`; nothing otherwise.
    /// A few objects a run (the command's writer, its last file's stages), never one per
    /// file or record.
    static func keep(_ object: AnyObject) {
        guard flag.isRaised else { return }
        _ = Unmanaged.passRetained(object)
    }
}
