import Foundation
import Testing

@testable import IPALinksKit

/// Info.plist keys of another type than Apple documents: what can be read is kept and the rest named, where a number
/// among an app's URL schemes dropped every scheme of the list without a word.
struct InfoPlistTypeTests {
  /// An app's Info.plist with `body` inside its top dictionary, inspected from a real zip.
  static func inspect(_ body: String) throws -> BundleReport? {
    let zip = try ZipTool()
    defer { zip.cleanUp() }
    let info = #"<?xml version="1.0"?><plist version="1.0"><dict>"# + body + "</dict></plist>"
    try zip.write("Payload/A.app/Info.plist", Array(info.utf8))
    return Inspector().inspect(path: try zip.zip("a.ipa")).bundles.first
  }

  static func warnings(_ bundle: BundleReport?) -> [String] {
    (bundle?.diagnostics ?? []).filter { $0.code == .infoPlistWrongType }.map(\.message)
  }

  @Test func aNumberAmongTheSchemesLeavesTheOthers() throws {
    let bundle = try Self.inspect(
      """
      <key>CFBundleIdentifier</key><string>com.example.a</string>
      <key>CFBundleURLTypes</key><array><dict><key>CFBundleURLSchemes</key>
        <array><string>good</string><integer>1</integer><string>other</string></array></dict></array>
      <key>LSApplicationQueriesSchemes</key><array><string>q1</string><true/></array>
      """)
    #expect(bundle?.urlSchemes == ["good", "other"])
    #expect(bundle?.queriedURLSchemes == ["q1"])
    #expect(
      Self.warnings(bundle) == [
        "Payload/A.app/Info.plist: CFBundleURLTypes/0/CFBundleURLSchemes/1 is an integer, not a string; left out",
        "Payload/A.app/Info.plist: LSApplicationQueriesSchemes/1 is a boolean, not a string; left out",
      ])
  }

  @Test func aLoneStringOrDictionaryIsReadAsAListOfOne() throws {
    let bundle = try Self.inspect(
      """
      <key>CFBundleURLTypes</key><dict><key>CFBundleURLSchemes</key><string>lone</string></dict>
      """)
    #expect(bundle?.urlSchemes == ["lone"])
    #expect(
      Self.warnings(bundle) == [
        "Payload/A.app/Info.plist: CFBundleURLTypes is a dictionary, not an array; read as a list of one",
        "Payload/A.app/Info.plist: CFBundleURLTypes/0/CFBundleURLSchemes is a string, not an array of strings; "
          + "read as a list of one",
      ])
  }

  @Test func anIdentifierThatIsNotAStringIsSaid() throws {
    let bundle = try Self.inspect("<key>CFBundleIdentifier</key><array><string>com.example.a</string></array>")
    #expect(bundle?.bundleId == nil)
    #expect(
      Self.warnings(bundle) == ["Payload/A.app/Info.plist: CFBundleIdentifier is an array, not a string; left out"])
  }
}
