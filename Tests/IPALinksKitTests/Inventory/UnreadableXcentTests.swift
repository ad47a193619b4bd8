import Foundation
import Testing

@testable import IPALinksKit

/// An app whose entitlements come from its `.xcent` alone (no entitlements in a signature): an `.xcent` that cannot
/// be read leaves them unknown, so the input is partial, where it was complete with "Associated domains none".
struct UnreadableXcentTests {
  @Test func anUnreadableXcentWithoutASignedSourceMakesTheInputPartial() throws {
    let zip = try ZipTool()
    defer { zip.cleanUp() }
    try zip.writeApp(xcent: Array("<plist><dict><key>a</key><string>x\0y</string></dict></plist>".utf8))
    try zip.write("Payload/A.app/A", makeMachO(signature: nil))
    let report = Inspector().inspect(path: try zip.zip("a.ipa"))
    #expect(report.status == .partial, "\(report.bundles.first?.diagnostics ?? [])")
    let unread = report.bundles.first?.diagnostics.filter {
      $0.code == .plistNulCharacter || $0.code == .xcentUnreadable
    }
    #expect(unread?.count == 1 && unread?.first?.severity == .error, "\(unread ?? [])")
    // Read, the same app is complete: the status comes from the .xcent.
    let readable = try ZipTool()
    defer { readable.cleanUp() }
    try readable.writeApp(xcent: Array("<plist><dict><key>a</key><string>xy</string></dict></plist>".utf8))
    try readable.write("Payload/A.app/A", makeMachO(signature: nil))
    #expect(Inspector().inspect(path: try readable.zip("a.ipa")).status == .complete)
  }
}

/// An entry without a service is shown as the entitlement writes it: `applinks` alone read `:applinks`.
struct EntryWithoutAServiceTests {
  @Test func isShownAsWritten() throws {
    let zip = try ZipTool()
    defer { zip.cleanUp() }
    let xcent = """
      <plist><dict><key>com.apple.developer.associated-domains</key>
      <array><string>applinks</string><string>applinks:a.example.com</string></array></dict></plist>
      """
    try zip.writeApp(xcent: Array(xcent.utf8))
    try zip.write("Payload/A.app/A", makeMachO(signature: nil))
    let text = TextReporter(useColor: false).render(Inspector().inspect(path: try zip.zip("a.ipa")))
    let lines = text.split(separator: "\n").map(String.init)
    #expect(lines.contains("    applinks"), "\(text)")
    #expect(!text.contains(":applinks"), "\(text)")
    #expect(lines.contains { $0.hasPrefix("    applinks:a.example.com") }, "\(text)")
  }
}
