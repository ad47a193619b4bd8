import IPALinksFuzzing

/// libFuzzer's entry point; the harness body is `FuzzHarness.cms` in the main package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  FuzzHarness.cms.run(Array(UnsafeBufferPointer(start: data, count: size)))
  return 0
}
