import Foundation
import Testing

/// `match --urls LIST`: a file (or standard input) of URLs decided as the same URLs given one by one, its lines
/// that are not URLs named and counted in the exit code, and a pipe's URLs answered as they come.
struct MatchListTests {
  static let arguments = [
    "match", "--aasa", CLI.sample("aasa/shop.example.com.json"), "--app-id", "ST0REAPP42.com.example.store",
  ]
  static let urls = [
    "https://shop.example.com/buy/1", "https://shop.example.com/buy/gift/card", "https://shop.example.com/about",
  ]

  func list(_ text: String) throws -> String {
    let path = try Engines.folder().appendingPathComponent("urls.txt").path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func aListIsDecidedAsItsURLsGivenOneByOne() throws {
    // Comments, blank lines, white space and CRLF line ends are read as a user's file has them.
    let path = try list(
      "# the shop\n\n  \(Self.urls[0])  \r\n\(Self.urls[1])\nshop.example.com/buy/2\n\(Self.urls[2])")
    for format in ["text", "jsonl", "json"] {
      let given = try CLI.run(Self.arguments + ["--format", format] + Self.urls)
      let listed = try CLI.run(Self.arguments + ["--format", format, "--urls", path])
      #expect(!given.stdout.isEmpty && listed.stdout == given.stdout, "\(format): \(listed.stderr)")
      #expect(
        listed.stderr == "ipalinks: \(path): line 5: \"shop.example.com/buy/2\" is not an absolute URL with a host\n")
      #expect(listed.status == 1)
    }
    // Arguments first, then the list; a list of URLs that all open the app ends with 0, and one line that is not
    // a URL with 1 though every URL opens it.
    let both = try CLI.run(Self.arguments + ["--format", "jsonl", "--urls", try list(Self.urls[0]), Self.urls[2]])
    #expect(both.stdout == (try CLI.run(Self.arguments + ["--format", "jsonl", Self.urls[2], Self.urls[0]])).stdout)
    #expect(try CLI.run(Self.arguments + ["--urls", try list(Self.urls[0] + "\n# done\n")]).status == 0)
    #expect(try CLI.run(Self.arguments + ["--urls", try list(Self.urls[0] + "\nnot a url\n")]).status == 1)
  }

  /// What cannot be read exits with 66 and says why; a list of no URL is not a pass; standard input serves one of
  /// `--aasa` and `--urls`, not both.
  @Test func aListThatCannotBeReadOrHoldsNoURLIsSaid() throws {
    let missing = try Engines.folder().appendingPathComponent("none.txt").path
    let gone = try CLI.run(Self.arguments + ["--urls", missing])
    #expect(gone.status == 66 && gone.stdout.isEmpty)
    #expect(gone.stderr == "ipalinks: \(missing): cannot read the URL list: No such file or directory\n")
    let folder = try Engines.folder().path
    let notFile = try CLI.run(Self.arguments + ["--urls", folder])
    #expect(notFile.status == 66 && notFile.stderr == "ipalinks: \(folder): cannot read the URL list: Is a directory\n")
    let empty = try list("# nothing yet\n")
    let none = try CLI.run(Self.arguments + ["--urls", empty])
    #expect(none.status == 1 && none.stderr == "ipalinks: \(empty): no URL to decide\n")
    let twice = try CLI.run(["match", "--aasa", "-", "--urls", "-"])
    #expect(twice.status == 64 && twice.stderr.contains("--aasa and --urls cannot both read standard input"))
    #expect(try CLI.run(["match", "--aasa", CLI.sample("aasa/shop.example.com.json")]).status == 64)
    // --domain is a host, as for `aasa diff`: empty, it made every URL "not the file's domain".
    for (domain, problem) in [
      ("", "--domain: '' is not a host name"),
      (
        "https://shop.example.com/",
        "--domain: 'https://shop.example.com/' is a URL; give the host alone, shop.example.com"
      ),
    ] {
      let run = try CLI.run(Self.arguments + ["--domain", domain, "https://shop.example.com/buy/1"])
      #expect(run.status == 64 && run.stderr.hasPrefix("Error: \(problem)\n"), "\(run.stderr)")
    }
  }

  /// A URL written to the pipe is answered before the pipe ends: a list is decided as it is read.
  @Test func aPipesURLsAreAnsweredAsTheyCome() throws {
    let process = Process()
    process.executableURL = CLI.binary
    process.arguments = Self.arguments + ["--format", "jsonl", "--urls", "-"]
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    input.fileHandleForWriting.write(Data((Self.urls[0] + "\n").utf8))
    // One line back while the pipe is still open; the reader would wait forever on a command that read all first.
    var first = Data()
    let deadline = Date().addingTimeInterval(60)
    while !first.contains(UInt8(ascii: "\n")) && Date() < deadline {
      first += output.fileHandleForReading.availableData
    }
    #expect(
      String(decoding: first, as: UTF8.self).contains(#""url":"https://shop.example.com/buy/1","verdict":"match""#))
    input.fileHandleForWriting.write(Data((Self.urls[2] + "\n").utf8))
    try input.fileHandleForWriting.close()
    let rest = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(String(decoding: rest, as: UTF8.self).contains(#""verdict":"no-match""#))
    #expect(process.terminationStatus == 1)
  }

  /// `diff --urls` reads its list the same way: a line that is not a URL is named, not compared as a sample.
  @Test func diffNamesTheSamplesThatAreNotURLs() throws {
    let path = try list("\(Self.urls[0])\nnot a url\n")
    let store = CLI.sample("Store.ipa")
    let run = try CLI.run(
      ["diff", store, store, "--aasa-dir", CLI.sample("aasa"), "--urls", path, "--url", "nope", "-q"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(run.stdout.contains("(1 compared)"), "\(run.stdout)")
    #expect(
      run.stderr == "ipalinks: --url \"nope\" is not an absolute URL with a host\n"
        + "ipalinks: \(path): line 2: \"not a url\" is not an absolute URL with a host\n")
    // A list of no URL leaves the comparison without its URL section, which would read as "no verdict changed".
    let none = try list("# nothing yet\n\n")
    let empty = try CLI.run(["diff", store, store, "--aasa-dir", CLI.sample("aasa"), "--urls", none, "-q"])
    #expect(empty.status == 0 && !empty.stdout.contains("compared"), "\(empty.stdout)")
    #expect(empty.stderr == "ipalinks: warning: \(none): no URL in the list, so no verdict is compared\n")
  }
}
