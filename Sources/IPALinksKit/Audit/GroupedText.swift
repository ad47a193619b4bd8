import Foundation

/// Text filed under keys and given back grouped: keys in the order they first came, each key's text in the order it
/// came. It holds at most `budget` bytes of text in memory: past that, each key's text so far is appended to a file
/// of its own in a private temporary folder, which ``write(_:header:separator:)`` and ``discard()`` remove.
///
/// What lets `who-claims --urls` group the URLs of a crawl by app without holding them all: its input can be as
/// long as the user likes, and the text of millions of URLs would otherwise stay in memory until the end.
public final class GroupedText: @unchecked Sendable {
  private struct Group {
    /// The key's number, which names its file (a key is untrusted text, never a file name).
    var number: Int
    var items = 0
    /// The text not yet in the key's file, in one string: a string per item would cost a header and a slot each.
    var pending = ""
    var spilled = false
  }

  private let budget: Int
  /// How much of a file is read at a time when it is given back.
  private let chunk: Int
  /// Where the private folder is made.
  private let parent: URL
  private var order: [String] = []
  private var groups: [String: Group] = [:]
  private var held = 0
  /// Guards ``folder``, which ``discard()`` may read from another thread (a Ctrl-C handler).
  private let lock = NSLock()
  private var folder: URL?
  /// Why text could not be moved to disk (it then stays in memory), or read back once it was.
  public private(set) var problem: String?

  /// Groups text in memory up to `budget` bytes (by default 8 MiB), and on disk past it, in a folder made in the
  /// temporary directory (`TMPDIR`).
  public convenience init(budget: Int = 8 << 20) {
    self.init(budget: budget, chunk: 1 << 20, parent: FileManager.default.temporaryDirectory)
  }

  /// The same, reading files back `chunk` bytes at a time and making the folder in `parent` (tests change both).
  init(budget: Int, chunk: Int, parent: URL) {
    self.budget = budget
    self.chunk = max(chunk, 1)
    self.parent = parent
  }

  /// How many items ``append(_:to:)`` filed under `key`: for tests.
  func count(of key: String) -> Int { groups[key]?.items ?? 0 }

  /// The keys, in the order they first came: for tests.
  var keys: [String] { order }

  /// Files `text`, one item, under `key`.
  public func append(_ text: String, to key: String) {
    if groups[key] == nil {
      groups[key] = Group(number: order.count)
      order.append(key)
    }
    groups[key]!.items += 1
    groups[key]!.pending += text
    held += text.utf8.count
    if held > budget && problem == nil { spill() }
  }

  /// Writes every group through `write`, in order: `header(key, count)`, then its text; `separator` goes between
  /// groups. The folder is removed after.
  public func write(
    _ write: (String) -> Void, header: (String, Int) -> String, separator: String = ""
  ) {
    defer { discard() }
    for (k, key) in order.enumerated() {
      guard let group = groups[key] else { continue }
      write((k > 0 ? separator : "") + header(key, group.items))
      if group.spilled, let file = file(group.number) {
        guard let handle = try? FileHandle(forReadingFrom: file) else {
          problem = "cannot read back \(file.path): some of the text under \(key) is missing"
          write(group.pending)
          continue
        }
        // A chunk ends in the middle of a character now and then: its bytes wait for the next.
        var carry = Data()
        while let chunk = try? handle.read(upToCount: chunk), !chunk.isEmpty {
          carry.append(chunk)
          let cut = Self.wholeCharacters(carry)
          write(String(decoding: carry.prefix(cut), as: UTF8.self))
          // A new value for the few bytes left: removing the front of a Data keeps its storage, which the next
          // appends would grow by the whole file.
          carry = Data(carry.suffix(from: carry.startIndex + cut))
        }
        try? handle.close()
        if !carry.isEmpty { write(String(decoding: carry, as: UTF8.self)) }
      }
      write(group.pending)
    }
  }

  /// Removes the folder and what is in it. Safe from another thread, as a last act before exiting.
  public func discard() {
    lock.lock()
    defer { lock.unlock() }
    if let folder { try? FileManager.default.removeItem(at: folder) }
    folder = nil
  }

  deinit { discard() }

  /// Appends every group's pending text to its file.
  private func spill() {
    guard let folder = makeFolder() else { return }
    for key in order {
      guard var group = groups[key], !group.pending.isEmpty else { continue }
      let file = folder.appendingPathComponent("\(group.number)")
      var opened: (handle: FileHandle, end: UInt64)? = nil
      do {
        if !FileManager.default.fileExists(atPath: file.path) {
          guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
          else { throw CocoaError(.fileWriteUnknown) }
        }
        let handle = try FileHandle(forWritingTo: file)
        opened = (handle, try handle.seekToEnd())
        // The string's own bytes, not a copy of them.
        try group.pending.withUTF8 { try handle.write(contentsOf: UnsafeRawBufferPointer($0)) }
        try handle.close()
      } catch {
        // A write cut short (a full disk) is undone, since the text it held stays in memory and is given back from
        // there.
        if let opened {
          try? opened.handle.truncate(atOffset: opened.end)
          try? opened.handle.close()
        }
        problem = "cannot write to \(folder.path) (\(error.localizedDescription)); keeping the text in memory"
        return
      }
      group.pending = ""
      group.spilled = true
      groups[key] = group
    }
    held = 0
  }

  /// The private folder, made on first use.
  private func makeFolder() -> URL? {
    lock.lock()
    defer { lock.unlock() }
    if let folder { return folder }
    let made = parent.appendingPathComponent("ipalinks-\(UUID().uuidString)")
    do {
      try FileManager.default.createDirectory(
        at: made, withIntermediateDirectories: false,
        attributes: [
          .posixPermissions: 0o700
        ])
    } catch {
      problem = "cannot make a temporary folder in \(parent.path); keeping the text in memory"
      return nil
    }
    folder = made
    return made
  }

  /// The folder, once made: for tests.
  var folderForTests: URL? {
    lock.lock()
    defer { lock.unlock() }
    return folder
  }

  private func file(_ number: Int) -> URL? {
    lock.lock()
    defer { lock.unlock() }
    return folder?.appendingPathComponent("\(number)")
  }

  /// How many leading bytes of `data` are whole UTF-8 characters: all, unless it ends inside one.
  private static func wholeCharacters(_ data: Data) -> Int {
    var end = data.count
    var back = 0
    // Step back over continuation bytes to the last lead byte; keep it only if its character is complete.
    while end > 0 && back < 4 && data[data.startIndex + end - 1] & 0xC0 == 0x80 {
      end -= 1
      back += 1
    }
    guard end > 0 else { return data.count }
    let lead = data[data.startIndex + end - 1]
    let length = lead < 0x80 ? 1 : lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
    return back + 1 >= length ? data.count : end - 1
  }
}
