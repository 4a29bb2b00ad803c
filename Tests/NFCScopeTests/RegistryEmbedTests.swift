import Foundation
import Testing
@testable import NFCScope

/// The built-in copy must match plugins/ so the binary decodes exactly what the
/// repository's plugin files say. Fix a failure by running plugins/embed.sh.
@Suite struct RegistryEmbedTests {
    static let pluginsDirectory: String = {
        // Tests/NFCScopeTests/<this file> → package root.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("plugins").path
    }()

    @Test func embeddedCopyEqualsPluginFiles() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.pluginsDirectory)
            .filter { $0.hasSuffix(".plugin") }.sorted()
        #expect(BuiltinPlugins.files.map(\.name) == names, "run plugins/embed.sh")
        for file in BuiltinPlugins.files {
            let onDisk = try String(contentsOfFile: Self.pluginsDirectory + "/" + file.name, encoding: .utf8)
            #expect(onDisk == file.text, "\(file.name) differs from its embedded copy: run plugins/embed.sh")
        }
    }

    @Test func pluginFolderChecksClean() {
        #expect(PluginChecker.check(directory: Self.pluginsDirectory) == [])
    }
}
