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
