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

    /// The shipped folder checks clean, and the same folder with one planted mistake reports
    /// exactly that mistake (so "clean" is not what the checker says of anything).
    @Test func pluginFolderChecksClean() throws {
        #expect(PluginChecker.check(directory: Self.pluginsDirectory) == [])
        var files: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: Self.pluginsDirectory) where name.hasSuffix(".plugin") {
            files[name] = try String(contentsOfFile: Self.pluginsDirectory + "/" + name, encoding: .utf8)
        }
        let aids = try #require(files["aids.plugin"])
        let badLine = aids.split(separator: "\n", omittingEmptySubsequences: false).count
        files["aids.plugin"] = aids + "A00000000G1010 | emv-payment | X | Planted mistake\n"
        let copy = pluginFolder(files)
        let diagnostics = PluginChecker.check(directory: copy)
        #expect(diagnostics.count == 1, "\(diagnostics)")
        #expect(diagnostics.first?.file == copy + "/aids.plugin")
        #expect(diagnostics.first?.line == badLine)
    }
}
