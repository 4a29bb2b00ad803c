// Reading plugin folders from disk (through the libc helpers in Bytes/, so the
// binary does not load Foundation at start-up).

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
        switch FileSystem.kind(of: directory) {
        case .missing:
            return ([], [PluginDiagnostic(file: directory, line: 0, reason: "plugin folder does not exist")])
        case .directory:
            break
        default:
            return ([], [PluginDiagnostic(file: directory, line: 0, reason: "not a folder (give the folder holding .plugin files)")])
        }
        let base = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        guard let relativePaths = FileSystem.files(below: base)?.filter({ $0.hasSuffix(".plugin") }) else {
            return ([], [PluginDiagnostic(file: directory, line: 0, reason: "cannot read plugin folder")])
        }
        var files: [(path: String, text: String)] = []
        var diagnostics: [PluginDiagnostic] = []
        for relative in relativePaths {
            let path = base + "/" + relative
            guard let bytes = FileSystem.contents(of: path) else {
                diagnostics.append(PluginDiagnostic(file: path, line: 0, reason: "cannot read file"))
                continue
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
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
        let (recipe, problems) = recipe(pluginDirectories: pluginDirectories, environment: environment)
        return load(recipe: recipe, readProblems: problems)
    }

    /// What `load` returns for what `recipe` read (and the mistakes in reading it).
    public static func load(recipe: Recipe, readProblems: [PluginDiagnostic]) -> (Registry, [PluginDiagnostic]) {
        guard let files = recipe.files else { return (builtin, readProblems) }
        let (registry, parseProblems) = build(adding: files)
        return (registry, readProblems + parseProblems)
    }

    /// What `load` reads from the plugin folders (and the mistakes in reading them),
    /// kept to build the same registry again.
    public static func recipe(pluginDirectories: [String], environment: [String: String])
        -> (Recipe, [PluginDiagnostic])
    {
        let directories = PluginLoader.directories(commandLine: pluginDirectories, environment: environment)
        if directories.isEmpty { return (Recipe(files: nil), []) }
        var files: [(path: String, text: String)] = []
        var diagnostics: [PluginDiagnostic] = []
        for directory in directories {
            let (found, problems) = PluginLoader.readFiles(in: directory)
            files += found
            diagnostics += problems
        }
        return (Recipe(files: files), diagnostics)
    }

    /// The plugin files `load` read, to build its registry again: `-j` gives each worker
    /// thread a registry of its own, so that two threads never update the reference
    /// count of the same entry or table (each such update makes the two cores take
    /// turns at one cache line; BENCHMARKS.md, session 16).
    public struct Recipe: Sendable {
        /// Paths and text of the plugin files; nil for the built-in files alone.
        let files: [(path: String, text: String)]?

        /// A registry equal to the one `load` returned, sharing no object with it (the
        /// built-in parts parsed on first use, currencies, FeliCa and SIM tables, are
        /// still shared).
        public func make() -> Registry {
            guard let files else { return Registry.makeBuiltin() }
            return Registry.build(adding: files).0
        }
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
