import IPALinksFuzzing

/// libFuzzer's entry point; the harness body is `FuzzHarness.codesignature` in the main package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  FuzzHarness.codesignature.run(Array(UnsafeBufferPointer(start: data, count: size)))
  return 0
}
