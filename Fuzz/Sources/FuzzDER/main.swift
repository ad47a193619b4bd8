import IPALinksFuzzing

/// libFuzzer's entry point; the harness body is `FuzzHarness.der` in the main package.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
  FuzzHarness.der.run(Array(UnsafeBufferPointer(start: data, count: size)))
  return 0
}
