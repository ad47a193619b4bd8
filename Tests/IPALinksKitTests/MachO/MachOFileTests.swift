import Testing

@testable import IPALinksKit

struct MachOFileTests {
  @Test func thin64FindsSignatureAndEncryption() throws {
    let bytes = makeMachO(signature: makeSuperBlob([]), cryptid: 1)
    let slices = try MachOFile.slices(of: MemoryByteSource(bytes))
    #expect(slices.count == 1)
    #expect(slices[0].architecture == "arm64")
    #expect(slices[0].is64Bit)
    #expect(slices[0].codeSignature?.offset == 0x1000)
    #expect(slices[0].cryptID == 1)
  }

  @Test func unsignedSliceHasNoSignatureRange() throws {
    let slices = try MachOFile.slices(of: MemoryByteSource(makeMachO(signature: nil)))
    #expect(slices[0].codeSignature == nil)
    #expect(slices[0].cryptID == nil)
  }

  @Test func fatBinarySignatureOffsetsAreRelativeToTheSlice() throws {
    let slice = makeMachO(signature: makeSuperBlob([]))
    var b = Bytes()
    b.u32be(0xcafe_babe); b.u32be(1)
    b.u32be(0x0100_000c); b.u32be(0); b.u32be(0x4000); b.u32be(UInt32(slice.count)); b.u32be(14)
    b.pad(to: 0x4000)
    b.raw(slice)
    let slices = try MachOFile.slices(of: MemoryByteSource(b.data))
    #expect(slices.count == 1)
    #expect(slices[0].offset == 0x4000)
    let signature = try CodeSignatureReader.read(MemoryByteSource(b.data), slice: slices[0])
    #expect(signature != nil)
  }

  @Test func javaClassFileIsNotFat() throws {
    let java: [UInt8] = [0xCA, 0xFE, 0xBA, 0xBE, 0x00, 0x00, 0x00, 0x34] + [UInt8](repeating: 0, count: 64)
    #expect(!MachOFile.looksLikeMachO(java))
    #expect(throws: MachOError.notMachO(file: "<memory>", magic: 0xcafe_babe)) {
      try MachOFile.slices(of: MemoryByteSource(java))
    }
  }

  @Test func fatSlicePastEndOfFileIsReported() {
    var b = Bytes()
    b.u32be(0xcafe_babe); b.u32be(1)
    b.u32be(0x0100_000c); b.u32be(0); b.u32be(0x10_0000); b.u32be(0x1000); b.u32be(14)
    #expect(throws: MachOError.self) { try MachOFile.slices(of: MemoryByteSource(b.data)) }
  }

  @Test func truncatedLoadCommandsAreReported() {
    let bytes = Array(makeMachO(signature: makeSuperBlob([])).prefix(40))
    #expect(throws: MachOError.self) { try MachOFile.slices(of: MemoryByteSource(bytes)) }
  }

  @Test func zeroSizedLoadCommandCannotLoopForever() {
    var b = Bytes()
    b.raw([0xcf, 0xfa, 0xed, 0xfe]); b.u32le(0x0100_000c); b.u32le(0); b.u32le(2)
    b.u32le(1000); b.u32le(8); b.u32le(0); b.u32le(0)
    b.u32le(0x19); b.u32le(0)
    #expect(throws: MachOError.self) { try MachOFile.slices(of: MemoryByteSource(b.data)) }
  }

  @Test func absurdLoadCommandSizeIsRefusedBeforeReading() {
    var b = Bytes()
    b.raw([0xcf, 0xfa, 0xed, 0xfe]); b.u32le(0x0100_000c); b.u32le(0); b.u32le(2)
    b.u32le(1); b.u32le(0xFFFF_FFF0); b.u32le(0); b.u32le(0)
    #expect(throws: MachOError.malformed(file: "<memory>", what: "load commands claim 4294967280 bytes")) {
      try MachOFile.slices(of: MemoryByteSource(b.data))
    }
  }

  @Test func architectureNames() {
    #expect(MachOFile.architectureName(cpuType: 12, subtype: 9) == "armv7")
    #expect(MachOFile.architectureName(cpuType: 0x0100_000c, subtype: 2) == "arm64e")
    #expect(MachOFile.architectureName(cpuType: 0x0100_0007, subtype: 3) == "x86_64")
  }
}
