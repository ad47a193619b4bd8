/// The version of ipalinks, as `ipalinks --version` prints it and every JSON document's `generator` field names it.
public enum ToolVersion {
  /// The release number; bumped by hand when a release is tagged.
  public static let current = "0.9.0"
  /// `ipalinks 0.9.0`: the `generator` value, so a saved document says which version wrote it.
  public static var generator: String { "ipalinks \(current)" }
}
