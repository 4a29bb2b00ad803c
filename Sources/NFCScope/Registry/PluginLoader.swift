// Reading plugin folders from disk. The only registry file that uses Foundation:
// it runs once before decoding, never on the hot path.
import Foundation

public enum PluginLoader {
    /// The environment variable holding extra plugin folders, separated by ':'.
    public static let environmentVariable = "NFCSCOPE_PLUGINS"

    /// The folders to load after the built-in files: the environment's, then `directories`
    /// (from `--plugins`), in that order, so the command line has the last word.
    public static func directories(commandLine directories: [String], environment: [String: String]) -> [String] {
        let fromEnvironment = (environment[environmentVariable] ?? "")
            .split(separator: ":", omittingEmptySubsequences: true).map(String.init)
        return fromEnvironment + directories
    }

    /// The `.plugin` files below `directory` (recursively, sorted by path) with their text.
    /// A folder or file that cannot be read is a diagnostic, never skipped silently.
    static func readFiles(in directory: String) -> ([(path: String, text: String)], [PluginDiagnostic]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) else {
            return ([], [PluginDiagnostic(file: directory, line: 0, reason: "plugin folder does not exist")])
        }
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let relativePaths: [String]
        if isDirectory.boolValue {
            guard let enumerator = FileManager.default.enumerator(atPath: directory) else {
                return ([], [PluginDiagnostic(file: directory, line: 0, reason: "cannot read plugin folder")])
            }
            relativePaths = enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".plugin") }.sorted()
        } else {
            return ([], [PluginDiagnostic(file: directory, line: 0, reason: "not a folder (give the folder holding .plugin files)")])
        }
        var files: [(path: String, text: String)] = []
        var diagnostics: [PluginDiagnostic] = []
        for relative in relativePaths {
            let path = base + "/" + relative
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDir), isDir.boolValue { continue }
            guard let data = FileManager.default.contents(atPath: path) else {
                diagnostics.append(PluginDiagnostic(file: path, line: 0, reason: "cannot read file"))
                continue
            }
            guard let text = String(data: data, encoding: .utf8) else {
                diagnostics.append(PluginDiagnostic(file: path, line: 0, reason: "file is not valid UTF-8 text"))
                continue
            }
            files.append((path: path, text: text))
        }
        return (files, diagnostics)
    }
}

extension Registry {
    /// The built-in entries overridden, entry by entry, by the folders named in
    /// `NFCSCOPE_PLUGINS` and then by `pluginDirectories` (the `--plugins` options).
    /// Entries with mistakes are left out and reported; everything valid is loaded.
    public static func load(pluginDirectories: [String], environment: [String: String])
        -> (Registry, [PluginDiagnostic])
    {
        let directories = PluginLoader.directories(commandLine: pluginDirectories, environment: environment)
        if directories.isEmpty { return (builtin, []) }
        var files: [(path: String, text: String)] = []
        var diagnostics: [PluginDiagnostic] = []
        for directory in directories {
            let (found, problems) = PluginLoader.readFiles(in: directory)
            files += found
            diagnostics += problems
        }
        let (registry, parseProblems) = build(adding: files)
        return (registry, diagnostics + parseProblems)
    }
}

public enum PluginChecker {
    /// Every mistake in the plugin files of `directory`, each with file, line and reason.
    /// References to built-in tables count as valid.
    public static func check(directory: String) -> [PluginDiagnostic] {
        let (files, problems) = PluginLoader.readFiles(in: directory)
        return problems + Registry.build(adding: files).1
    }
}
