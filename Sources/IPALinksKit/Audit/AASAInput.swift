import Foundation
import UniversalLinks

/// Reads the AASA file `aasa validate`, `aasa show` and `match` take: a path, or `-` for standard input.
public enum AASAInput {
  /// Far above the 128 KB iOS accepts, so the validator can still report an oversized file, yet bounded:
  /// the input is untrusted and may be a pipe that never ends.
  public static let maximumBytes = 4 << 20

  /// Why the file could not be used; the description names the file.
  public enum Failure: Error, Sendable, CustomStringConvertible {
    /// The file cannot be opened or read.
    case unreadable(path: String, reason: String)
    /// The file is larger than ``AASAInput/maximumBytes``.
    case tooLarge(path: String)
    /// The bytes are not an AASA file at all.
    case invalid(path: String, AASAError)

    /// One line for stderr.
    public var description: String {
      switch self {
      case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
      case .tooLarge(let path): "\(path): larger than the \(AASAInput.maximumBytes >> 20) MiB read limit; refused"
      case .invalid(let path, let error): "\(path): \(error)"
      }
    }

    /// The documented exit code: 66 (EX_NOINPUT) when the file cannot be read, 65 (EX_DATAERR) when it is too large
    /// or not AASA JSON.
    public var exitCode: Int32 {
      if case .unreadable = self { return 66 }
      return 65
    }
  }

  /// Reads a file, or standard input for `-`, up to ``maximumBytes``.
  public static func read(_ path: String) throws(Failure) -> [UInt8] {
    do {
      return Array(try WholeFile.read(path, limit: maximumBytes, chunk: 64 << 10))
    } catch .unreadable(let reason) {
      throw .unreadable(path: path, reason: reason)
    } catch {
      throw .tooLarge(path: path)
    }
  }

  /// The host a file is named after, as `--aasa-dir` names files (`shop.example.com.json` or `shop.example.com`);
  /// nil when the name is not a host with a dot.
  public static func host(namedBy path: String) -> String? {
    var name = URL(fileURLWithPath: path).lastPathComponent.lowercased()
    if name.hasSuffix(".json") { name.removeLast(5) }
    guard path != "-", name.contains("."), HostArgument.problem(name) == nil else { return nil }
    return name
  }

  /// Reads and parses.
  public static func load(_ path: String) throws(Failure) -> AASAFile {
    let bytes = try read(path)
    do {
      return try AASAFile(bytes: bytes)
    } catch {
      throw .invalid(path: path, error)
    }
  }
}
