import Foundation

/// How much slower than a plain debug build the tests run: `IPALINKS_TEST_TIME_SCALE` (1 when unset). The sanitizer
/// runs set it, because ASan and TSan make TLS handshakes several times slower, and a test that checks a 1 s
/// timeout must give the handshake time to happen before the timeout it is measuring.
public enum TestTiming {
  public static let scale: Double = {
    guard let text = ProcessInfo.processInfo.environment["IPALINKS_TEST_TIME_SCALE"], let value = Double(text),
      value >= 1
    else { return 1 }
    return value
  }()

  /// `seconds`, scaled.
  public static func seconds(_ seconds: Double) -> Duration { .milliseconds(Int64(seconds * scale * 1000)) }
}
