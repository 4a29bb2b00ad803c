// What the command-line targets need from the registry beyond the public API.

extension Registry {
    /// A registry with no entries: `stats` uses it when no plugin folder is given, since
    /// nothing it prints comes from the registry.
    package static var empty: Registry { Registry(RegistryBuilder()) }
}
