/// Why an executable could not be read as Mach-O. Each case names the file.
public enum MachOError: Error, CustomStringConvertible, Equatable, Sendable {
  /// No Mach-O magic at the start, or a fat header listing implausibly many slices (as a Java class file does).
  case notMachO(file: String, magic: UInt32)
  /// A header, table or load command runs past the end of the file or slice; `what` says which.
  case truncated(file: String, what: String)
  /// Present but impossible: a load command of a bad size, too many load-command bytes, or a fat file with no slices.
  case malformed(file: String, what: String)

  /// One line naming the executable and the fault, as printed in diagnostics.
  public var description: String {
    switch self {
    case .notMachO(let file, let magic): "\(file): not a Mach-O executable (magic 0x\(String(magic, radix: 16)))"
    case .truncated(let file, let what): "\(file): truncated Mach-O (\(what))"
    case .malformed(let file, let what): "\(file): malformed Mach-O (\(what))"
    }
  }
}

/// One architecture's image inside an executable, with the facts ipalinks needs from its load commands.
public struct MachOSlice: Sendable, Equatable {
  /// Where the slice starts in the file; `LC_CODE_SIGNATURE` offsets count from here.
  public var offset: UInt64
  /// The slice's length in bytes; its code signature must lie inside it.
  public var size: UInt64
  /// The header's `cputype`; ``architecture`` turns it into a name.
  public var cpuType: Int32
  /// The header's `cpusubtype`, which tells arm64e from arm64; its high byte carries capability flags.
  public var cpuSubtype: Int32
  /// Taken from the slice's own header magic, not from the fat table.
  public var is64Bit: Bool
  /// File range of the code signature, relative to the slice; nil when the slice is unsigned.
  public var codeSignature: (offset: UInt32, size: UInt32)?
  /// `cryptid` of `LC_ENCRYPTION_INFO(_64)`: 1 means FairPlay-encrypted text (the signature stays readable).
  public var cryptID: UInt32?
  /// File range, relative to the slice, of the `__TEXT,__entitlements` section: where a simulator build keeps its
  /// entitlements (an XML plist), since the simulator does not read them from the code signature. Not checked
  /// against the slice's size here; the reader does that and names a bad range.
  public var entitlementsSection: (offset: UInt64, size: UInt64)? = nil
  /// The `platform` of `LC_BUILD_VERSION` (2 iOS, 7 iOS Simulator, …); nil when the slice has none.
  public var platform: UInt32? = nil

  /// Whether `LC_BUILD_VERSION` names a simulator: iOS, tvOS, watchOS or visionOS Simulator.
  public var isSimulator: Bool { platform.map { [7, 8, 9, 12].contains($0) } ?? false }

  /// Creates a slice; a signature can then be read from any byte source, as the fuzz harness does.
  public init(
    offset: UInt64, size: UInt64, cpuType: Int32, cpuSubtype: Int32, is64Bit: Bool,
    codeSignature: (offset: UInt32, size: UInt32)? = nil, cryptID: UInt32? = nil
  ) {
    self.offset = offset
    self.size = size
    self.cpuType = cpuType
    self.cpuSubtype = cpuSubtype
    self.is64Bit = is64Bit
    self.codeSignature = codeSignature
    self.cryptID = cryptID
  }

  /// A readable architecture name ("arm64", "armv7", "x86_64").
  public var architecture: String { MachOFile.architectureName(cpuType: cpuType, subtype: cpuSubtype) }

  /// Compares every field; written out because the tuple in ``codeSignature`` keeps Swift from synthesizing it.
  public static func == (a: MachOSlice, b: MachOSlice) -> Bool {
    a.offset == b.offset && a.size == b.size && a.cpuType == b.cpuType && a.cpuSubtype == b.cpuSubtype
      && a.is64Bit == b.is64Bit && a.codeSignature?.offset == b.codeSignature?.offset
      && a.codeSignature?.size == b.codeSignature?.size && a.cryptID == b.cryptID
      && a.entitlementsSection?.offset == b.entitlementsSection?.offset
      && a.entitlementsSection?.size == b.entitlementsSection?.size && a.platform == b.platform
  }
}

/// Reads Mach-O headers, thin or fat, touching only the header and load-command bytes.
public enum MachOFile {
  /// More slices than any real universal binary; also the guard that tells fat files from Java classes.
  public static let maximumFatArchitectures: UInt32 = 0x20
  /// Bounds the load-command read; real executables use kilobytes.
  public static let maximumLoadCommandBytes: UInt32 = 8 << 20

  static let fatMagic: UInt32 = 0xcafe_babe
  static let fat64Magic: UInt32 = 0xcafe_babf
  static let lcCodeSignature: UInt32 = 0x1d
  static let lcEncryptionInfo: UInt32 = 0x21
  static let lcEncryptionInfo64: UInt32 = 0x2c
  static let lcSegment: UInt32 = 0x1
  static let lcSegment64: UInt32 = 0x19
  static let lcBuildVersion: UInt32 = 0x32

  /// True when the first bytes are a thin or fat Mach-O magic (with the Java-class guard).
  public static func looksLikeMachO(_ head: [UInt8]) -> Bool {
    guard head.count >= 8 else { return false }
    let be = ByteReader(head).u32(0, bigEndian: true)
    switch be {
    case 0xfeed_face, 0xfeed_facf, 0xcefa_edfe, 0xcffa_edfe: return true
    case fatMagic, fat64Magic: return ByteReader(head).u32(4, bigEndian: true)! < maximumFatArchitectures
    default: return false
    }
  }

  /// The slices of the executable in `source`, in file order.
  public static func slices(of source: any ByteSource) throws -> [MachOSlice] {
    let head = try read(source, at: 0, count: 8, what: "header")
    let r = ByteReader(head)
    let magic = r.u32(0, bigEndian: true)!
    if magic == fatMagic || magic == fat64Magic {
      let count = r.u32(4, bigEndian: true)!
      guard count < maximumFatArchitectures else { throw MachOError.notMachO(file: source.name, magic: magic) }
      guard count > 0 else { throw MachOError.malformed(file: source.name, what: "fat header lists no architectures") }
      let is64 = magic == fat64Magic
      let entrySize = is64 ? 32 : 20
      let table = ByteReader(try read(source, at: 8, count: Int(count) * entrySize, what: "fat architecture table"))
      var slices: [MachOSlice] = []
      for i in 0..<Int(count) {
        let base = i * entrySize
        let cpu = Int32(bitPattern: table.u32(base, bigEndian: true)!)
        let sub = Int32(bitPattern: table.u32(base + 4, bigEndian: true)!)
        let offset = is64 ? table.u64(base + 8, bigEndian: true)! : UInt64(table.u32(base + 8, bigEndian: true)!)
        let size = is64 ? table.u64(base + 16, bigEndian: true)! : UInt64(table.u32(base + 12, bigEndian: true)!)
        guard offset < source.size, size <= source.size - offset else {
          throw MachOError.truncated(
            file: source.name, what: "slice \(i) at \(offset)+\(size) lies past the \(source.size)-byte file")
        }
        slices.append(MachOSlice(offset: offset, size: size, cpuType: cpu, cpuSubtype: sub, is64Bit: false))
      }
      slices.sort { $0.offset < $1.offset }
      // Read each slice's header in file order, so an archive entry streams forward only once.
      return try slices.map { try thinSlice(source, at: $0.offset, size: $0.size) }
    }
    return [try thinSlice(source, at: 0, size: source.size)]
  }

  private static func read(_ source: any ByteSource, at offset: UInt64, count: Int, what: String) throws -> [UInt8] {
    guard offset <= source.size, UInt64(count) <= source.size - offset else {
      throw MachOError.truncated(
        file: source.name, what: "\(what) needs \(count) bytes at offset \(offset), file has \(source.size)")
    }
    return try source.read(at: offset, count: count)
  }

  private static func thinSlice(_ source: any ByteSource, at offset: UInt64, size: UInt64) throws -> MachOSlice {
    let head = try read(source, at: offset, count: min(32, Int(min(size, 32))), what: "Mach-O header")
    guard head.count >= 28 else { throw MachOError.truncated(file: source.name, what: "Mach-O header at \(offset)") }
    let magicBE = ByteReader(head).u32(0, bigEndian: true)!
    let (is64, bigEndian): (Bool, Bool)
    switch magicBE {
    case 0xfeed_face: (is64, bigEndian) = (false, true)
    case 0xfeed_facf: (is64, bigEndian) = (true, true)
    case 0xcefa_edfe: (is64, bigEndian) = (false, false)
    case 0xcffa_edfe: (is64, bigEndian) = (true, false)
    default: throw MachOError.notMachO(file: source.name, magic: magicBE)
    }
    let h = ByteReader(head)
    let cpu = Int32(bitPattern: h.u32(4, bigEndian: bigEndian)!)
    let sub = Int32(bitPattern: h.u32(8, bigEndian: bigEndian)!)
    let ncmds = h.u32(16, bigEndian: bigEndian)!
    let sizeofcmds = h.u32(20, bigEndian: bigEndian)!
    let headerSize: UInt64 = is64 ? 32 : 28
    guard sizeofcmds <= maximumLoadCommandBytes else {
      throw MachOError.malformed(file: source.name, what: "load commands claim \(sizeofcmds) bytes")
    }
    guard headerSize + UInt64(sizeofcmds) <= size else {
      throw MachOError.truncated(file: source.name, what: "load commands (\(sizeofcmds) bytes) run past the slice")
    }
    let commands = ByteReader(try read(source, at: offset + headerSize, count: Int(sizeofcmds), what: "load commands"))
    var slice = MachOSlice(offset: offset, size: size, cpuType: cpu, cpuSubtype: sub, is64Bit: is64)
    var cursor = 0
    for index in 0..<ncmds {
      guard let cmd = commands.u32(cursor, bigEndian: bigEndian),
        let cmdsize = commands.u32(cursor + 4, bigEndian: bigEndian)
      else {
        throw MachOError.truncated(file: source.name, what: "load command \(index) of \(ncmds) lies past sizeofcmds")
      }
      guard cmdsize >= 8, Int(cmdsize) <= Int(sizeofcmds) - cursor else {
        throw MachOError.malformed(file: source.name, what: "load command \(index) has size \(cmdsize)")
      }
      switch cmd {
      case lcCodeSignature:
        guard let dataoff = commands.u32(cursor + 8, bigEndian: bigEndian),
          let datasize = commands.u32(cursor + 12, bigEndian: bigEndian), cmdsize >= 16
        else { throw MachOError.malformed(file: source.name, what: "short LC_CODE_SIGNATURE") }
        if datasize > 0 { slice.codeSignature = (dataoff, datasize) }
      case lcEncryptionInfo, lcEncryptionInfo64:
        guard cmdsize >= 20, let cryptid = commands.u32(cursor + 16, bigEndian: bigEndian) else {
          throw MachOError.malformed(file: source.name, what: "short LC_ENCRYPTION_INFO")
        }
        slice.cryptID = cryptid
      case lcBuildVersion:
        // Only a hint of where the entitlements are: a short command is passed over, not an error.
        if cmdsize >= 12 { slice.platform = commands.u32(cursor + 8, bigEndian: bigEndian) }
      case lcSegment, lcSegment64:
        if let section = entitlementsSection(
          commands, at: cursor, size: Int(cmdsize), is64: cmd == lcSegment64,
          bigEndian: bigEndian)
        {
          slice.entitlementsSection = section
        }
      default: break
      }
      cursor += Int(cmdsize)
    }
    return slice
  }

  /// The `__entitlements` section of a `__TEXT` segment command at `cursor`, as a file range; nil for another
  /// segment, a segment without it, or a command too short for the sections it claims.
  private static func entitlementsSection(
    _ commands: ByteReader, at cursor: Int, size: Int, is64: Bool, bigEndian: Bool
  ) -> (offset: UInt64, size: UInt64)? {
    let (header, sectionSize) = is64 ? (72, 80) : (56, 68)
    guard size >= header, commands.fixedString(cursor + 8, length: 16) == "__TEXT",
      let count = commands.u32(cursor + (is64 ? 64 : 48), bigEndian: bigEndian),
      header + Int(count) * sectionSize <= size
    else { return nil }
    for index in 0..<Int(count) {
      let section = cursor + header + index * sectionSize
      guard commands.fixedString(section, length: 16) == "__entitlements" else { continue }
      let length =
        is64
        ? commands.u64(section + 40, bigEndian: bigEndian)
        : commands.u32(section + 36, bigEndian: bigEndian).map(UInt64.init)
      let offset = commands.u32(section + (is64 ? 48 : 40), bigEndian: bigEndian)
      guard let length, let offset else { return nil }
      return (UInt64(offset), length)
    }
    return nil
  }

  /// Names for the CPU types iOS apps ship, falling back to the raw numbers.
  public static func architectureName(cpuType: Int32, subtype: Int32) -> String {
    let sub = subtype & 0x00ff_ffff
    switch cpuType {
    case 12:
      switch sub {
      case 9: return "armv7"
      case 11: return "armv7s"
      case 6: return "armv6"
      default: return "arm"
      }
    case 0x0100_000c: return sub == 2 ? "arm64e" : "arm64"
    case 0x0200_000c: return "arm64_32"
    case 7: return "i386"
    case 0x0100_0007: return "x86_64"
    default: return "cpu\(cpuType)/\(subtype)"
    }
  }
}

/// Bounds-checked integer reads from a byte array: out-of-range reads return nil instead of trapping.
struct ByteReader {
  let bytes: [UInt8]
  init(_ bytes: [UInt8]) { self.bytes = bytes }

  func u8(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }

  func u32(_ at: Int, bigEndian: Bool) -> UInt32? {
    guard at >= 0, at <= bytes.count - 4 else { return nil }
    let v = UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
    return bigEndian ? v : v.byteSwapped
  }

  func u64(_ at: Int, bigEndian: Bool) -> UInt64? {
    guard let hi = u32(at, bigEndian: true), let lo = u32(at + 4, bigEndian: true) else { return nil }
    let v = UInt64(hi) << 32 | UInt64(lo)
    return bigEndian ? v : v.byteSwapped
  }

  /// A NUL-terminated string starting at `at`, at most `limit` bytes long.
  /// A NUL-padded name of `length` bytes, such as a segment or section name.
  func fixedString(_ at: Int, length: Int) -> String? {
    guard at >= 0, at + length <= bytes.count else { return nil }
    return String(decoding: bytes[at..<at + length].prefix { $0 != 0 }, as: UTF8.self)
  }

  func cString(_ at: Int, limit: Int = 1024) -> String? {
    guard at >= 0, at < bytes.count else { return nil }
    let end = min(bytes.count, at + limit)
    guard let nul = bytes[at..<end].firstIndex(of: 0) else { return nil }
    return String(decoding: bytes[at..<nul], as: UTF8.self)
  }
}
