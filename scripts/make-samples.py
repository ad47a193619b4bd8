#!/usr/bin/env python3
"""Generate the ipalinks sample IPAs (samples/) and test fixtures (Tests/Fixtures/).

Python 3 standard library only. Deterministic: fixed zip timestamps, fixed entry
order, fixed deflate level, seeded pseudo-randomness. Running it twice produces
byte-identical files (given the same zlib build; deflate output can differ between
zlib implementations, e.g. zlib vs zlib-ng).

    python3 scripts/make-samples.py            # regenerate into the repo
    python3 scripts/make-samples.py --check    # regenerate into a temp dir, diff, exit 1 on drift
    python3 scripts/make-samples.py --out DIR  # regenerate into DIR/samples and DIR/Tests/Fixtures

The byte layouts follow /work/shared/FORMATS.md (Mach-O, code signature SuperBlob,
DER entitlements, CMS-wrapped provisioning profiles). make-big-ipa.py imports the
builders below, so keep their signatures stable.
"""

import argparse
import datetime
import hashlib
import io
import json
import os
import plistlib
import random
import shutil
import struct
import sys
import tempfile
import zlib

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZIP_DATE = (2024, 5, 1, 12, 0, 0)  # every zip entry gets this DOS timestamp
DEFLATE_LEVEL = 9

# ---------------------------------------------------------------------------
# DER / BER
# ---------------------------------------------------------------------------


def der_len(n):
    """Definite length octets: short form below 128, long form otherwise."""
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def tlv(tag, content):
    return bytes([tag]) + der_len(len(content)) + content


def der_int(n):
    """INTEGER with minimal two's-complement content."""
    nbits = n.bit_length() if n >= 0 else (-n - 1).bit_length()
    return tlv(0x02, n.to_bytes(nbits // 8 + 1, "big", signed=True))


def der_oid(dotted):
    parts = [int(p) for p in dotted.split(".")]
    out = bytearray([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7F]
        p >>= 7
        while p:
            chunk.append(0x80 | (p & 0x7F))
            p >>= 7
        out += bytes(reversed(chunk))
    return tlv(0x06, bytes(out))


def der_value(v):
    if isinstance(v, bool):
        return tlv(0x01, b"\xff" if v else b"\x00")
    if isinstance(v, int):
        return der_int(v)
    if isinstance(v, str):
        return tlv(0x0C, v.encode("utf-8"))
    if isinstance(v, bytes):
        return tlv(0x04, v)
    if isinstance(v, (list, tuple)):
        return tlv(0x30, b"".join(der_value(x) for x in v))
    if isinstance(v, dict):
        return tlv(0xB0, b"".join(der_dict_entries(v)))
    raise TypeError("cannot DER-encode %r" % (v,))


def der_dict_entries(d):
    """SEQUENCE{UTF8String key, value} per entry, sorted by key (Apple's order)."""
    return [tlv(0x30, tlv(0x0C, k.encode("utf-8")) + der_value(d[k]))
            for k in sorted(d, key=lambda k: k.encode("utf-8"))]


def der_entitlements(d, form="app16"):
    """app16: Apple's [APPLICATION 16]{INTEGER 1, [CONTEXT 16]{...}} (codesign).
    set:   a bare SET (0x31) of the entries, in DER SET OF order, i.e. sorted by
           their encodings (what ldid writes; seen in real App Store binaries)."""
    entries = der_dict_entries(d)
    if form == "app16":
        return tlv(0x70, der_int(1) + tlv(0xB0, b"".join(entries)))
    if form == "set":
        return tlv(0x31, b"".join(sorted(entries)))
    raise ValueError(form)


# Test vectors from FORMATS.md (rcodesign, captured from Apple's codesign).
assert der_entitlements({}) == bytes.fromhex("70050201 01B000".replace(" ", ""))
assert der_entitlements({"key": True}) == bytes.fromhex(
    "700F020101B00A30080C036B65790101FF")
assert der_int(0) == b"\x02\x01\x00" and der_int(128) == b"\x02\x02\x00\x80"
assert der_int(-129) == b"\x02\x02\xff\x7f" and der_int(127) == b"\x02\x01\x7f"

OID_SIGNED_DATA = "1.2.840.113549.1.7.2"
OID_DATA = "1.2.840.113549.1.7.1"


def cms_definite(payload):
    """ContentInfo{signedData, [0] SignedData{1, {}, {data, [0] OCTET STRING}, {}}} (DER)."""
    encap = tlv(0x30, der_oid(OID_DATA) + tlv(0xA0, tlv(0x04, payload)))
    signed = tlv(0x30, der_int(1) + tlv(0x31, b"") + encap + tlv(0x31, b""))
    return tlv(0x30, der_oid(OID_SIGNED_DATA) + tlv(0xA0, signed))


def cms_indefinite(payload, chunk=1024):
    """Same structure in BER: indefinite lengths (0x80 ... 00 00) on every constructed
    element and the content split into a constructed OCTET STRING (0x24) of chunks."""
    eoc = b"\x00\x00"
    octets = b"\x24\x80" + b"".join(
        tlv(0x04, payload[i:i + chunk]) for i in range(0, len(payload), chunk)) + eoc
    encap = b"\x30\x80" + der_oid(OID_DATA) + b"\xa0\x80" + octets + eoc + eoc
    signed = b"\x30\x80" + der_int(1) + tlv(0x31, b"") + encap + tlv(0x31, b"") + eoc
    return b"\x30\x80" + der_oid(OID_SIGNED_DATA) + b"\xa0\x80" + signed + eoc + eoc


# ---------------------------------------------------------------------------
# Code signature
# ---------------------------------------------------------------------------

CSMAGIC_EMBEDDED_SIGNATURE = 0xFADE0CC0
CSMAGIC_CODEDIRECTORY = 0xFADE0C02
CSMAGIC_REQUIREMENTS = 0xFADE0C01
CSMAGIC_EMBEDDED_ENTITLEMENTS = 0xFADE7171
CSMAGIC_EMBEDDED_DER_ENTITLEMENTS = 0xFADE7172
CSMAGIC_BLOBWRAPPER = 0xFADE0B01

CS_ADHOC = 0x2  # CodeDirectory flags: ad hoc signed (no certificate, no team identifier)

CS_PAGE_SHIFT = 12
CS_PAGE = 1 << CS_PAGE_SHIFT
HASHES = {1: (hashlib.sha1, 20), 2: (hashlib.sha256, 32)}


def blob(magic, payload):
    return struct.pack(">II", magic, 8 + len(payload)) + payload


def page_hashes(data, hash_type):
    h = HASHES[hash_type][0]
    return [h(data[i:i + CS_PAGE]).digest() for i in range(0, len(data), CS_PAGE)]


class Sig:
    """What goes into one Mach-O slice's embedded signature.

    xml / der: entitlement payloads (bytes) for slot 5 / slot 7, or None to omit.
    info_plist / code_resources: bytes hashed into special slots -1 / -3.
    exec_seg_flags: CS_EXECSEG_MAIN_BINARY (1) | CS_EXECSEG_ALLOW_UNSIGNED (0x10).
    extra_blobs: [(slot, blob bytes)] appended (e.g. a second slot-5 blob).
    count_override: value written into the SuperBlob count field (bad fixtures).
    cd_flags: the CodeDirectory flags field, e.g. CS_ADHOC (0x2) for an ad hoc signature
              (which also has no team identifier: pass team=None)."""

    def __init__(self, xml=None, der=None, info_plist=None, code_resources=None,
                 exec_seg_flags=1, extra_blobs=(), count_override=None, cd_flags=0):
        self.xml = xml
        self.der = der
        self.info_plist = info_plist
        self.code_resources = code_resources
        self.exec_seg_flags = exec_seg_flags
        self.extra_blobs = list(extra_blobs)
        self.count_override = count_override
        self.cd_flags = cd_flags


def code_directory(hash_type, ident, team, code_limit, hashes, special, exec_seg_limit,
                   exec_seg_flags, flags=0):
    """CodeDirectory version 0x20400 (header 0x58 bytes, see cs_blobs.h). team=None writes
    teamOffset 0 (no team identifier, as in ad hoc signatures); flags e.g. CS_ADHOC."""
    hsize = HASHES[hash_type][1]
    hfun = HASHES[hash_type][0]
    nspecial = max([k for k, v in special.items() if v is not None] or [0])
    ident_b = ident.encode() + b"\0"
    team_b = team.encode() + b"\0" if team else b""
    ident_off = 0x58
    team_off = ident_off + len(ident_b) if team else 0
    hash_off = ident_off + len(ident_b) + len(team_b) + nspecial * hsize
    length = hash_off + len(hashes) * hsize
    hdr = struct.pack(
        ">IIIIIIIIIBBBBIIIIQQQQ",
        CSMAGIC_CODEDIRECTORY, length, 0x20400, flags,  # magic, length, version, flags
        hash_off, ident_off, nspecial, len(hashes), code_limit,
        hsize, hash_type, 0, CS_PAGE_SHIFT, 0,  # hashSize, hashType, platform, pageSize, spare2
        0, team_off,  # scatterOffset, teamOffset
        0, 0,  # spare3, codeLimit64
        0, exec_seg_limit, exec_seg_flags)  # execSegBase, execSegLimit, execSegFlags
    assert len(hdr) == 0x58
    slots = b""
    for k in range(nspecial, 0, -1):  # stored at hashOffset - k*hashSize
        data = special.get(k)
        slots += hfun(data).digest() if data is not None else b"\0" * hsize
    out = hdr + ident_b + team_b + slots + b"".join(hashes)
    assert len(out) == length
    return out


def superblob(sig, ident, team, code_limit, hashes_by_type, exec_seg_limit):
    """SuperBlob: CodeDirectory (SHA-1) in slot 0, empty requirements in slot 2,
    entitlements in 5 / 7, SHA-256 alternate CodeDirectory in 0x1000, and an
    empty CMS wrapper in 0x10000. Returns (bytes, cdhash of the SHA-256 CD)."""
    req = struct.pack(">III", CSMAGIC_REQUIREMENTS, 12, 0)
    xml = blob(CSMAGIC_EMBEDDED_ENTITLEMENTS, sig.xml) if sig.xml is not None else None
    der = blob(CSMAGIC_EMBEDDED_DER_ENTITLEMENTS, sig.der) if sig.der is not None else None
    special = {1: sig.info_plist, 2: req, 3: sig.code_resources, 5: xml, 7: der}
    cds = {ht: code_directory(ht, ident, team, code_limit, hashes_by_type[ht], special,
                              exec_seg_limit, sig.exec_seg_flags, sig.cd_flags)
           for ht in (1, 2)}
    blobs = [(0, cds[1]), (2, req)]
    if xml is not None:
        blobs.append((5, xml))
    if der is not None:
        blobs.append((7, der))
    blobs += [(0x1000, cds[2]), (0x10000, struct.pack(">II", CSMAGIC_BLOBWRAPPER, 8))]
    blobs += sig.extra_blobs
    blobs.sort(key=lambda sb: sb[0])  # stable: duplicate slots stay in insertion order
    off = 12 + 8 * len(blobs)
    index = b""
    body = b""
    for slot, data in blobs:
        index += struct.pack(">II", slot, off + len(body))
        body += data
    count = len(blobs) if sig.count_override is None else sig.count_override
    out = struct.pack(">III", CSMAGIC_EMBEDDED_SIGNATURE, off + len(body), count) + index + body
    return out, hashlib.sha256(cds[2]).digest()[:20]


def sig_size(sig, ident, team, code_limit):
    n = (code_limit + CS_PAGE - 1) // CS_PAGE
    dummy = {ht: [b"\0" * HASHES[ht][1]] * n for ht in (1, 2)}
    return len(superblob(sig, ident, team, code_limit, dummy, 0)[0])


# ---------------------------------------------------------------------------
# Mach-O
# ---------------------------------------------------------------------------

ARCHES = {
    "arm64": dict(cputype=0x0100000C, cpusubtype=0, is64=True),
    "armv7": dict(cputype=12, cpusubtype=9, is64=False),
}
LC_SEGMENT, LC_SYMTAB, LC_LOAD_DYLIB, LC_LOAD_DYLINKER = 0x1, 0x2, 0xC, 0xE
LC_SEGMENT_64, LC_UUID, LC_CODE_SIGNATURE = 0x19, 0x1B, 0x1D
LC_ENCRYPTION_INFO, LC_VERSION_MIN_IPHONEOS, LC_ENCRYPTION_INFO_64 = 0x21, 0x25, 0x2C
LC_BUILD_VERSION, LC_MAIN = 0x32, 0x80000028
MH_EXECUTE = 2
MH_FLAGS = 0x00200085  # NOUNDEFS | DYLDLINK | TWOLEVEL | PIE
SEG_PAGE = 0x4000


def align(n, a):
    return (n + a - 1) // a * a


def _pad_str(s, base, a):
    raw = s.encode() + b"\0"
    return raw + b"\0" * (align(base + len(raw), a) - base - len(raw))


def _name16(s):
    return s.encode().ljust(16, b"\0")


def load_commands(arch, *, text_size, code_off, code_len, linkedit_size, strtab_len,
                  encryption, sig_range, uuid):
    """Load commands for a minimal iOS executable. sig_range: (dataoff, datasize) or None."""
    is64 = ARCHES[arch]["is64"]
    a = 8 if is64 else 4
    base = 0x100000000 if is64 else SEG_PAGE
    cmds = []
    if is64:
        seg = lambda name, va, vs, fo, fs, prot, sects: struct.pack(
            "<II16sQQQQiiII", LC_SEGMENT_64, 72 + 80 * len(sects), _name16(name), va, vs, fo,
            fs, prot, prot, len(sects), 0) + b"".join(sects)
        sect = lambda name, segname, addr, size, off: struct.pack(
            "<16s16sQQIIIIIIII", _name16(name), _name16(segname), addr, size, off, 2, 0, 0,
            0x80000400, 0, 0, 0)
    else:
        seg = lambda name, va, vs, fo, fs, prot, sects: struct.pack(
            "<II16sIIIIiiII", LC_SEGMENT, 56 + 68 * len(sects), _name16(name), va, vs, fo, fs,
            prot, prot, len(sects), 0) + b"".join(sects)
        sect = lambda name, segname, addr, size, off: struct.pack(
            "<16s16sIIIIIIIII", _name16(name), _name16(segname), addr, size, off, 2, 0, 0,
            0x80000400, 0, 0)
    cmds.append(seg("__PAGEZERO", 0, base, 0, 0, 0, []))
    cmds.append(seg("__TEXT", base, text_size, 0, text_size, 5,
                    [sect("__text", "__TEXT", base + code_off, code_len, code_off)]))
    cmds.append(seg("__LINKEDIT", base + text_size, align(linkedit_size, SEG_PAGE), text_size,
                    linkedit_size, 1, []))
    cmds.append(struct.pack("<IIIIII", LC_SYMTAB, 24, text_size, 0, text_size, strtab_len))
    dyld = _pad_str("/usr/lib/dyld", 12, a)
    cmds.append(struct.pack("<III", LC_LOAD_DYLINKER, 12 + len(dyld), 12) + dyld)
    cmds.append(struct.pack("<II", LC_UUID, 24) + uuid)
    if is64:
        cmds.append(struct.pack("<IIIIII", LC_BUILD_VERSION, 24, 2, 0x000E0000, 0x00110000, 0))
    else:
        cmds.append(struct.pack("<IIII", LC_VERSION_MIN_IPHONEOS, 16, 0x00090000, 0x000A0000))
    cmds.append(struct.pack("<IIQQ", LC_MAIN, 24, code_off, 0))
    if encryption is not None:
        cryptoff, cryptsize = code_off, text_size - code_off
        if is64:
            cmds.append(struct.pack("<IIIIII", LC_ENCRYPTION_INFO_64, 24, cryptoff, cryptsize,
                                    encryption, 0))
        else:
            cmds.append(struct.pack("<IIIII", LC_ENCRYPTION_INFO, 20, cryptoff, cryptsize,
                                    encryption))
    lib = _pad_str("/usr/lib/libSystem.B.dylib", 24, a)
    cmds.append(struct.pack("<IIIIII", LC_LOAD_DYLIB, 24 + len(lib), 24, 2, 0x05276403,
                            0x00010000) + lib)
    if sig_range is not None:
        cmds.append(struct.pack("<IIII", LC_CODE_SIGNATURE, 16, *sig_range))
    for c in cmds:
        assert len(c) % a == 0, c[:8]
    return cmds


def macho_header(arch, cmds):
    info = ARCHES[arch]
    if info["is64"]:
        return struct.pack("<IiiIIIII", 0xFEEDFACF, info["cputype"], info["cpusubtype"],
                           MH_EXECUTE, len(cmds), sum(map(len, cmds)), MH_FLAGS, 0)
    return struct.pack("<IiiIIII", 0xFEEDFACE, info["cputype"], info["cpusubtype"],
                       MH_EXECUTE, len(cmds), sum(map(len, cmds)), MH_FLAGS)


STRTAB = b"\0__mh_execute_header\0_main\0\0\0\0\0"  # 32 bytes


def macho_layout(arch, ident, team, sig, text_size, encryption, code_len):
    """Offsets shared by build_macho and make-big-ipa.py's streaming writer."""
    code_off = SEG_PAGE if text_size >= 2 * SEG_PAGE else 0x1000
    linkedit_off = text_size
    sig_off = align(linkedit_off + len(STRTAB), 16)
    if sig is not None:
        datasize = align(sig_size(sig, ident, team, sig_off), 16)
        file_len = sig_off + datasize
        sig_range = (sig_off, datasize)
    else:
        file_len = sig_off
        sig_range = None
    uuid = hashlib.sha256(("%s/%s" % (ident, arch)).encode()).digest()[:16]
    cmds = load_commands(arch, text_size=text_size, code_off=code_off, code_len=code_len,
                         linkedit_size=file_len - linkedit_off, strtab_len=len(STRTAB),
                         encryption=encryption, sig_range=sig_range, uuid=uuid)
    head = macho_header(arch, cmds) + b"".join(cmds)
    assert len(head) <= code_off, "load commands overflow into __text"
    return dict(code_off=code_off, linkedit_off=linkedit_off, sig_off=sig_off,
                file_len=file_len, head=head)


def build_macho(arch, *, ident, team=None, sig=None, encryption=None, text_size=2 * SEG_PAGE,
                code_len=0x400, pre_sign=None):
    """A thin executable: header + load commands, __text filler (seeded), a small string
    table in __LINKEDIT, and (if sig) the SuperBlob at the 16-byte aligned end of
    __LINKEDIT. Page hashes are real. pre_sign(bytes) -> bytes may rewrite the executable
    (same length) before its pages are hashed. Returns (bytes, cdhash or None)."""
    lay = macho_layout(arch, ident, team, sig, text_size, encryption, code_len)
    buf = bytearray(lay["file_len"])
    buf[0:len(lay["head"])] = lay["head"]
    rng = random.Random("text:%s:%s" % (ident, arch))
    code = rng.randbytes(code_len - 4) + (b"\xc0\x03\x5f\xd6" if arch == "arm64" else
                                          b"\x1e\xff\x2f\xe1")  # ret / bx lr
    buf[lay["code_off"]:lay["code_off"] + code_len] = code
    buf[lay["linkedit_off"]:lay["linkedit_off"] + len(STRTAB)] = STRTAB
    if pre_sign is not None:
        patched = pre_sign(bytes(buf))
        assert len(patched) == len(buf)
        buf = bytearray(patched)
    cdhash = None
    if sig is not None:
        code_limit = lay["sig_off"]
        hashes = {ht: page_hashes(bytes(buf[:code_limit]), ht) for ht in (1, 2)}
        sb, cdhash = superblob(sig, ident, team, code_limit, hashes, text_size)
        buf[code_limit:code_limit + len(sb)] = sb
    return bytes(buf), cdhash


def build_fat(slices, fat64=False, align_log2=14):
    """slices: [(arch, bytes)]. Big-endian fat header (fat_arch or fat_arch_64); each
    slice starts at a multiple of 2^align_log2, the last one ends the file."""
    n = len(slices)
    step = 1 << align_log2
    out = bytearray(struct.pack(">II", 0xCAFEBABF if fat64 else 0xCAFEBABE, n))
    off = align(8 + n * (32 if fat64 else 20), step)
    offsets = []
    for arch, data in slices:
        info = ARCHES[arch]
        if fat64:
            out += struct.pack(">iiQQII", info["cputype"], info["cpusubtype"], off, len(data),
                               align_log2, 0)
        else:
            out += struct.pack(">iiIII", info["cputype"], info["cpusubtype"], off, len(data),
                               align_log2)
        offsets.append(off)
        off = align(off + len(data), step)
    for (arch, data), o in zip(slices, offsets):
        out += b"\0" * (o - len(out)) + data
    return bytes(out)


def find_superblob(buf, base=0):
    """(offset of the LC_CODE_SIGNATURE command, dataoff) of a thin little-endian Mach-O."""
    is64 = struct.unpack_from("<I", buf, base)[0] == 0xFEEDFACF
    ncmds = struct.unpack_from("<I", buf, base + 16)[0]
    p = base + (32 if is64 else 28)
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", buf, p)
        if cmd == LC_CODE_SIGNATURE:
            return p, struct.unpack_from("<I", buf, p + 8)[0]
        p += size
    raise ValueError("unsigned")


# ---------------------------------------------------------------------------
# Zip
# ---------------------------------------------------------------------------


def _dos(dt):
    y, mo, d, h, mi, s = dt
    return (h << 11) | (mi << 5) | (s // 2), ((y - 1980) << 9) | (mo << 5) | d


class ZipWriter:
    """Minimal, fully deterministic zip writer.

    descriptors: set general-purpose bit 3 and write CRC/sizes in data descriptors
                 (local header fields zero), as streaming writers do.
    zip64:       every entry carries ZIP64 extra fields (local and central, sizes and
                 offsets set to 0xFFFFFFFF) and the archive ends with a ZIP64 end of
                 central directory record + locator; the classic EOCD holds 0xFFFF /
                 0xFFFFFFFF placeholders.
    UTF-8 names get bit 11. No extra timestamp fields, no comments."""

    def __init__(self, fp, *, descriptors=False, zip64=False, level=DEFLATE_LEVEL,
                 date_time=ZIP_DATE):
        self.fp = fp
        self.descriptors = descriptors
        self.zip64 = zip64
        self.level = level
        self.time, self.date = _dos(date_time)
        self.pos = 0
        self.central = []

    def _w(self, b):
        self.fp.write(b)
        self.pos += len(b)

    def _version(self, method, is_dir):
        if self.zip64:
            return 45
        return 20 if method == 8 else 10

    def _local(self, name, flags, method, crc, csize, usize, is_dir):
        nb = name.encode("utf-8")
        if any(c > 0x7F for c in nb):
            flags |= 0x800
        if self.descriptors:
            flags |= 0x8
            crc = csize = usize = 0
        extra = b""
        c32, u32 = csize, usize
        if self.zip64:
            extra = struct.pack("<HHQQ", 1, 16, usize, csize)
            c32 = u32 = 0xFFFFFFFF
        hdr = struct.pack("<IHHHHHIIIHH", 0x04034B50, self._version(method, is_dir), flags,
                          method, self.time, self.date, crc, c32, u32, len(nb), len(extra))
        return hdr + nb + extra, flags

    def add_raw(self, name, cdata, crc, usize, *, method=8, mode=0o100644, flags=0):
        """Add an entry whose (possibly compressed) bytes are already known."""
        is_dir = name.endswith("/")
        offset = self.pos
        hdr, flags = self._local(name, flags, method, crc, len(cdata), usize, is_dir)
        if not self.zip64 and (len(cdata) > 0xFFFFFFFF or usize > 0xFFFFFFFF or
                               offset > 0xFFFFFFFF):
            raise ValueError("entry needs ZIP64: %s" % name)
        self._w(hdr)
        self._w(cdata)
        if self.descriptors:
            fmt = "<IIQQ" if self.zip64 else "<IIII"
            self._w(struct.pack(fmt, 0x08074B50, crc, len(cdata), usize))
        self.central.append((name, flags, method, crc, len(cdata), usize, offset, mode, is_dir))

    def add(self, name, data=b"", *, method=8, mode=None, flags=0):
        if mode is None:
            mode = 0o40755 if name.endswith("/") else 0o100644
        if method == 8:
            c = zlib.compressobj(self.level, zlib.DEFLATED, -15)
            cdata = c.compress(data) + c.flush()
        else:
            cdata = data
        self.add_raw(name, cdata, zlib.crc32(data), len(data), method=method, mode=mode,
                     flags=flags)

    def open_stream(self, name, *, method=8, mode=0o100644, flags=0):
        """Streamed entry; requires a seekable fp unless descriptors=True (the local
        header is patched in place when the entry is closed)."""
        return _StreamEntry(self, name, method, mode, flags)

    def close(self):
        cd_start = self.pos
        for name, flags, method, crc, csize, usize, offset, mode, is_dir in self.central:
            nb = name.encode("utf-8")
            extra = b""
            c32, u32, o32 = csize, usize, offset
            if self.zip64:
                extra = struct.pack("<HHQQQ", 1, 24, usize, csize, offset)
                c32 = u32 = o32 = 0xFFFFFFFF
            ext_attr = (mode << 16) | (0x10 if is_dir else 0)
            self._w(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 0x031E,
                                self._version(method, is_dir), flags, method, self.time,
                                self.date, crc, c32, u32, len(nb), len(extra), 0, 0, 0,
                                ext_attr, o32) + nb + extra)
        cd_size = self.pos - cd_start
        n = len(self.central)
        if self.zip64:
            eocd64 = self.pos
            self._w(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 0x031E, 45, 0, 0, n, n, cd_size,
                                cd_start))
            self._w(struct.pack("<IIQI", 0x07064B50, 0, eocd64, 1))
            self._w(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF,
                                0xFFFFFFFF, 0))
        else:
            if n > 0xFFFF or cd_size > 0xFFFFFFFF or cd_start > 0xFFFFFFFF:
                raise ValueError("archive needs ZIP64")
            self._w(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, cd_size, cd_start, 0))


class _StreamEntry:
    def __init__(self, zw, name, method, mode, flags):
        self.zw, self.name, self.method, self.mode, self.flags = zw, name, method, mode, flags
        self.crc = 0
        self.usize = 0
        self.csize = 0
        self.comp = zlib.compressobj(zw.level, zlib.DEFLATED, -15) if method == 8 else None
        self.offset = zw.pos
        hdr, self.flags = zw._local(name, flags, method, 0, 0, 0, False)
        self.hdr_len = len(hdr)
        zw._w(hdr)

    def write(self, data):
        self.crc = zlib.crc32(data, self.crc)
        self.usize += len(data)
        if self.comp is not None:
            data = self.comp.compress(data)
        if data:
            self.zw._w(data)
            self.csize += len(data)

    def close(self):
        zw = self.zw
        if self.comp is not None:
            tail = self.comp.flush()
            zw._w(tail)
            self.csize += len(tail)
        if not zw.zip64 and (self.csize > 0xFFFFFFFF or self.usize > 0xFFFFFFFF or
                             self.offset > 0xFFFFFFFF):
            raise ValueError("entry needs ZIP64: %s" % self.name)
        if zw.descriptors:
            fmt = "<IIQQ" if zw.zip64 else "<IIII"
            zw._w(struct.pack(fmt, 0x08074B50, self.crc, self.csize, self.usize))
        else:
            end = zw.fp.tell()
            hdr, _ = zw._local(self.name, self.flags, self.method, self.crc, self.csize,
                               self.usize, False)
            zw.fp.seek(self.offset)
            zw.fp.write(hdr)
            zw.fp.seek(end)
        zw.central.append((self.name, self.flags, self.method, self.crc, self.csize,
                           self.usize, self.offset, self.mode, False))


def zip_bytes(entries, *, descriptors=False, zip64=False, dirs=False, deflate_dirs=False):
    """entries: [(name, data, mode)] written in the given order. dirs=True inserts a
    directory entry before the first file below each directory."""
    out = io.BytesIO()
    zw = ZipWriter(out, descriptors=descriptors, zip64=zip64)
    seen = set()
    for name, data, mode in entries:
        if dirs:
            parts = name.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                d = "/".join(parts[:i]) + "/"
                if d not in seen:
                    seen.add(d)
                    zw.add(d, b"", method=8 if deflate_dirs else 0, mode=0o40755)
        zw.add(name, data, mode=mode)
    zw.close()
    return out.getvalue()


# ---------------------------------------------------------------------------
# Plists, profiles, bundles
# ---------------------------------------------------------------------------


def xml_plist(obj):
    return plistlib.dumps(obj, fmt=plistlib.FMT_XML, sort_keys=True)


def bin_plist(obj):
    return plistlib.dumps(obj, fmt=plistlib.FMT_BINARY, sort_keys=True)


DATE_CREATED = datetime.datetime(2024, 5, 1, 12, 0, 0)
DATE_EXPIRES = datetime.datetime(2025, 5, 1, 12, 0, 0)
UDIDS = ["00008110-001A2B3C4D5E801E", "2fe90dd085378386e89cf32032d053bc7e9d2ba6"]


def profile_plist(name, team, team_name, app_id_name, uuid, entitlements, devices=None,
                  all_devices=False):
    d = {
        "AppIDName": app_id_name,
        "ApplicationIdentifierPrefix": [team],
        "CreationDate": DATE_CREATED,
        "Entitlements": entitlements,
        "ExpirationDate": DATE_EXPIRES,
        "IsXcodeManaged": False,
        "Name": name,
        "Platform": ["iOS"],
        "TeamIdentifier": [team],
        "TeamName": team_name,
        "TimeToLive": 365,
        "UUID": uuid,
        "Version": 1,
    }
    if devices:
        d["ProvisionedDevices"] = list(devices)
    if all_devices:
        d["ProvisionsAllDevices"] = True
    return d


def profile_kind(p):
    if p.get("ProvisionsAllDevices"):
        return "enterprise"
    if p.get("ProvisionedDevices"):
        return "development" if p["Entitlements"].get("get-task-allow") else "ad-hoc"
    return "app-store"


def base_ents(team, bundle_id, **extra):
    d = {"application-identifier": "%s.%s" % (team, bundle_id),
         "com.apple.developer.team-identifier": team}
    for k, v in extra.items():
        d[k.replace("__", ".").replace("_", "-")] = v
    return d


AD = "com.apple.developer.associated-domains"


class Bundle:
    """One .app/.appex directory inside an IPA. `ents` are the entitlements embedded in
    the code signature (if signed); `xcent` goes to archived-expanded-entitlements.xcent;
    `profile` is a (plist dict, "definite"|"indefinite") pair. slices: [(arch, xml_form,
    der_form)] with xml_form in {"xml","binary",None} and der_form in {"app16","set",None}."""

    def __init__(self, path, kind, bundle_id, team, exe, display, *, url_types=(),
                 info_extra=None, info_format="xml", ents=None, slices=(("arm64", "xml", "app16"),),
                 encryption=None, xcent=None, profile=None, extra_files=(), children=(),
                 signed=True, cr_exclude=("SC_Info/",), simulator_ents=None, adhoc=False):
        self.path, self.kind, self.bundle_id, self.team = path, kind, bundle_id, team
        self.exe, self.display = exe, display
        self.url_types = list(url_types)
        self.info_extra = dict(info_extra or {})
        self.info_format = info_format
        self.ents = ents
        self.slices = list(slices)
        self.encryption = encryption
        self.xcent = xcent
        self.profile = profile
        self.extra_files = list(extra_files)
        self.children = list(children)
        self.signed = signed
        self.cr_exclude = cr_exclude
        # A simulator build: these entitlements go into the executable's __TEXT,__entitlements section.
        self.simulator_ents = simulator_ents
        # An ad hoc signature: CodeDirectory flags CS_ADHOC and no team identifier. With
        # simulator_ents, the signature's entitlements (`ents`, just get-task-allow as Xcode
        # writes them) are not the effective ones: the section's are.
        self.adhoc = adhoc

    def info(self):
        d = {
            "CFBundleDevelopmentRegion": "en",
            "CFBundleDisplayName": self.display,
            "CFBundleExecutable": self.exe,
            "CFBundleIdentifier": self.bundle_id,
            "CFBundleInfoDictionaryVersion": "6.0",
            "CFBundleName": self.exe,
            "CFBundlePackageType": "XPC!" if self.kind == "app-extension" else "APPL",
            "CFBundleShortVersionString": "1.2.3",
            "CFBundleSupportedPlatforms": ["iPhoneOS"],
            "CFBundleVersion": "45",
            "DTPlatformName": "iphoneos",
            "MinimumOSVersion": "14.0",
            "UIDeviceFamily": [1, 2],
        }
        if self.url_types:
            d["CFBundleURLTypes"] = self.url_types
        d.update(self.info_extra)
        return d

    def info_bytes(self):
        return bin_plist(self.info()) if self.info_format == "binary" else xml_plist(self.info())

    def url_schemes(self):
        return [s for t in self.url_types for s in t.get("CFBundleURLSchemes", [])]

    def effective_ents(self):
        if self.simulator_ents is not None and self.adhoc:
            return self.simulator_ents
        if self.signed and self.ents is not None:
            return self.ents
        return self.simulator_ents or self.xcent or {}

    def expected(self):
        sources = []
        if self.signed and self.ents is not None:
            sources.append("code-signature")
        if self.xcent is not None:
            sources.append("xcent")
        if self.profile is not None:
            sources.append("provisioning-profile")
        if self.simulator_ents is not None:
            sources.append("simulator-entitlements-section")
        ents = self.effective_ents()
        d = {
            "path": self.path,
            "kind": self.kind,
            "bundleId": self.bundle_id,
            "teamId": self.team,
            "appId": "%s.%s" % (self.team, self.bundle_id),
            "executable": self.exe,
            "arches": [s[0] for s in self.slices],
            "signed": self.signed,
            "associatedDomains": list(ents.get(AD, [])),
            "urlSchemes": self.url_schemes(),
            "encrypted": self.encryption == 1,
            "entitlementSources": sources,
        }
        assert ents.get("application-identifier") == d["appId"], self.path
        if self.profile is not None:
            d["profileKind"] = profile_kind(self.profile[0])
        return d


def add_simulator_entitlements(exe, plist):
    """A thin 64-bit executable turned into a simulator build's: an __entitlements
    section appended to __TEXT holding `plist` after the code, and LC_BUILD_VERSION's platform
    set to iOS Simulator (7). The load commands grow by one section (80 bytes), which the
    space before __text has room for. A signed executable must get this before its pages
    are hashed (build_macho's pre_sign)."""
    buf = bytearray(exe)
    magic, _, _, _, ncmds, sizeofcmds, _, _ = struct.unpack_from("<IiiIIIII", buf, 0)
    assert magic == 0xFEEDFACF, "simulator samples are thin 64-bit executables"
    cmds = bytes(buf[32:32 + sizeofcmds])
    out, p, ent_off = b"", 0, None
    for _ in range(ncmds):
        cmd, size = struct.unpack_from("<II", cmds, p)
        c = bytearray(cmds[p:p + size])
        if cmd == LC_SEGMENT_64 and c[8:24].rstrip(b"\0") == b"__TEXT":
            nsects = struct.unpack_from("<I", c, 64)[0]
            _, _, saddr, ssize, soff = struct.unpack_from("<16s16sQQI", c, 72 + 80 * (nsects - 1))
            ent_off = align(soff + ssize, 16)
            vmaddr = struct.unpack_from("<Q", c, 24)[0]
            struct.pack_into("<I", c, 4, size + 80)
            struct.pack_into("<I", c, 64, nsects + 1)
            c += struct.pack("<16s16sQQIIIIIIII", _name16("__entitlements"), _name16("__TEXT"),
                             vmaddr + ent_off, len(plist), ent_off, 0, 0, 0, 0, 0, 0, 0)
        elif cmd == LC_BUILD_VERSION:
            struct.pack_into("<I", c, 8, 7)
        out += bytes(c)
        p += size
    assert ent_off is not None and 32 + len(out) <= SEG_PAGE
    struct.pack_into("<I", buf, 20, len(out))
    buf[32:32 + len(out)] = out
    assert ent_off + len(plist) <= 2 * SEG_PAGE
    buf[ent_off:ent_off + len(plist)] = plist
    return bytes(buf)


def build_executable(b, info_bytes, code_resources, *, text_size=2 * SEG_PAGE, sig_patch=None):
    """Returns (bytes, cdhash). sig_patch(Sig) may tweak the signature (bad fixtures)."""
    out = []
    cdhash = None
    for arch, xml_form, der_form in b.slices:
        sig = None
        if b.signed:
            ents = b.ents or {}
            xml = None
            if xml_form == "xml":
                xml = xml_plist(ents)
            elif xml_form == "binary":
                xml = bin_plist(ents)
            der = der_entitlements(ents, der_form) if der_form else None
            flags = 1 | (0x10 if ents.get("get-task-allow") else 0)
            sig = Sig(xml=xml, der=der, info_plist=info_bytes, code_resources=code_resources,
                      exec_seg_flags=flags, cd_flags=CS_ADHOC if b.adhoc else 0)
            if sig_patch:
                sig_patch(sig)
        pre_sign = None
        if b.simulator_ents is not None:
            section = xml_plist(b.simulator_ents)
            pre_sign = lambda exe, section=section: add_simulator_entitlements(exe, section)
        data, cdhash = build_macho(arch, ident=b.bundle_id, team=None if b.adhoc else b.team,
                                   sig=sig, encryption=b.encryption, text_size=text_size,
                                   pre_sign=pre_sign)
        out.append((arch, data))
    if len(out) == 1:
        return out[0][1], cdhash
    return build_fat(out), cdhash


def render_bundle(b, sig_patch=None, post_exe=None):
    """All files of a bundle and its nested bundles, as [(relative path, bytes, mode)]
    relative to the bundle directory's parent of `b.path`. Returns (files, cdhash)."""
    files = []  # (path below b.path, data, mode)
    nested = {}
    for child in b.children:
        rel = child.path[len(b.path) + 1:]
        cfiles, ccd = render_bundle(child)
        files += [(rel + "/" + p, d, m) for p, d, m in cfiles]
        nested[rel] = (child, ccd)
    info = b.info_bytes()
    files.append(("Info.plist", info, 0o100644))
    files.append(("PkgInfo", b"XPC!????" if b.kind == "app-extension" else b"APPL????",
                  0o100644))
    if b.xcent is not None:
        files.append(("archived-expanded-entitlements.xcent", xml_plist(b.xcent), 0o100644))
    if b.profile is not None:
        plist, form = b.profile
        raw = xml_plist(plist)
        files.append(("embedded.mobileprovision",
                      cms_definite(raw) if form == "definite" else cms_indefinite(raw),
                      0o100644))
    files += list(b.extra_files)
    code_resources = None
    if b.signed:
        plain = {}
        plain2 = {}
        for p, d, _ in sorted(files):
            if p == "Info.plist" or any(p.startswith(n + "/") for n in nested) \
                    or any(p.startswith(x) for x in b.cr_exclude):
                continue
            plain[p] = hashlib.sha1(d).digest()
            if p != "PkgInfo":
                plain2[p] = {"hash": hashlib.sha1(d).digest(),
                             "hash2": hashlib.sha256(d).digest()}
        for rel, (child, ccd) in nested.items():
            plain2[rel] = {"cdhash": ccd, "requirement":
                           'identifier "%s" and anchor apple generic and certificate '
                           'leaf[subject.OU] = "%s"' % (child.bundle_id, child.team)}
        code_resources = xml_plist({
            "files": plain, "files2": plain2,
            "rules": {"^.*": True, "^Info\\.plist$": {"omit": True, "weight": 20}},
            "rules2": {"^.*": True, "^Info\\.plist$": {"omit": True, "weight": 20},
                       "^PkgInfo$": {"omit": True, "weight": 20}},
        })
        files.append(("_CodeSignature/CodeResources", code_resources, 0o100644))
    exe, cdhash = build_executable(b, info, code_resources, sig_patch=sig_patch)
    if post_exe:
        exe = post_exe(exe)
    files.append((b.exe, exe, 0o100755))
    return files, cdhash


def bundle_entries(b, sort=True, **kw):
    files, _ = render_bundle(b, **kw)
    out = [(b.path + "/" + p, d, m) for p, d, m in files]
    return sorted(out, key=lambda e: e[0].encode()) if sort else out


def all_bundles(b):
    yield b
    for c in b.children:
        yield from all_bundles(c)


def rnd(tag, n):
    return random.Random(tag).randbytes(n)


# ---------------------------------------------------------------------------
# Samples
# ---------------------------------------------------------------------------


def sample_xcent_only():
    team, bid = "XC3NT0NLY1", "com.example.xcentonly"
    b = Bundle("Payload/XcentOnly.app", "app", bid, team, "XcentOnly", "Xcent Only",
               url_types=[{"CFBundleURLName": "com.example.xcentonly",
                           "CFBundleURLSchemes": ["xcentonly"]},
                          {"CFBundleURLName": "com.example.xcentonly.oauth",
                           "CFBundleURLSchemes": ["com.example.xcentonly.oauth"]}],
               signed=False,
               xcent=base_ents(team, bid, **{AD: ["applinks:xcent.example.com",
                                                  "webcredentials:xcent.example.com"]},
                               get_task_allow=True))
    data = zip_bytes(bundle_entries(b), dirs=True)
    return "XcentOnly.ipa", data, [b], [
        "Unsigned executable (no LC_CODE_SIGNATURE): entitlements come from the xcent only."]


def sample_store():
    team, bid = "ST0REAPP42", "com.example.store"
    ents = base_ents(team, bid, **{
        AD: ["applinks:shop.example.com", "applinks:*.example.com",
             "applinks:dev.example.com?mode=developer", "webcredentials:example.com",
             "activitycontinuation:example.com"],
        "aps-environment": "production",
        "beta-reports-active": True,
        "get-task-allow": False,
        "keychain-access-groups": ["%s.%s" % (team, bid)],
    })
    b = Bundle("Payload/Store.app", "app", bid, team, "Store", "Store Sample",
               info_format="binary", ents=ents, encryption=1,
               url_types=[{"CFBundleURLName": bid,
                           "CFBundleURLSchemes": ["storeapp", "fb1234567890"]}],
               info_extra={"LSApplicationQueriesSchemes": ["twitter", "instagram"]},
               extra_files=[("SC_Info/Store.sinf", rnd("sinf", 1000), 0o100644)])
    entries = bundle_entries(b)
    entries.append(("META-INF/com.apple.ZipMetadata.plist",
                    bin_plist({"RequestID": 1234567890, "TotalUncompressedBytes":
                               sum(len(d) for _, d, _ in entries)}), 0o100644))
    entries.append(("iTunesMetadata.plist", xml_plist({
        "artistName": "Example Inc.", "bundleShortVersionString": "1.2.3",
        "bundleVersion": "45", "itemId": 1234567890, "itemName": "Store Sample",
        "kind": "software", "releaseDate": "2024-05-01T12:00:00Z",
        "softwareVersionBundleId": bid, "softwareVersionExternalIdentifier": 860000001,
        "com.apple.iTunesStore.downloadInfo": {"accountInfo": {"AppleID": "user@example.com"}},
    }), 0o100644))
    entries.sort(key=lambda e: e[0].encode())
    return "Store.ipa", zip_bytes(entries, dirs=False), [b], [
        "App Store shape: FairPlay LC_ENCRYPTION_INFO_64 cryptid=1, binary Info.plist, "
        "no directory entries, SC_Info and iTunesMetadata.plist present.",
        "LSApplicationQueriesSchemes (twitter, instagram) are NOT URL schemes of the app."]


def sample_fat():
    team, bid = "FAT2SL1CE5", "com.example.fat"
    ents = base_ents(team, bid, **{AD: ["applinks:fat.example.com"], "get-task-allow": False})
    b = Bundle("Payload/Fat.app", "app", bid, team, "Fat", "Fat Binary", ents=ents,
               encryption=0,
               slices=[("armv7", "xml", "set"), ("arm64", "xml", "app16")],
               url_types=[{"CFBundleURLName": "com.example.fat.noschemes"},
                          {"CFBundleURLName": bid, "CFBundleURLSchemes": ["fatapp"]}])
    return "Fat.ipa", zip_bytes(bundle_entries(b), dirs=True), [b], [
        "Fat (0xcafebabe) armv7 + arm64; both slices signed with the same entitlements; "
        "LC_ENCRYPTION_INFO(_64) present with cryptid=0 (not encrypted).",
        "The first CFBundleURLTypes entry has no CFBundleURLSchemes."]


def nested_bundles():
    team = "N3STEDAPP7"
    main_id = "com.example.nested.cafe"
    share = Bundle("Payload/Café.app/PlugIns/Share.appex", "app-extension",
                   main_id + ".share", team, "Share", "Share",
                   ents=base_ents(team, main_id + ".share"),
                   info_extra={"NSExtension": {
                       "NSExtensionPointIdentifier": "com.apple.share-services",
                       "NSExtensionPrincipalClass": "ShareViewController"}})
    clip = Bundle("Payload/Café.app/AppClips/Clip.app", "app-clip", main_id + ".Clip", team,
                  "Clip", "Café Clip",
                  ents=base_ents(team, main_id + ".Clip", **{
                      AD: ["appclips:clip.nested.example.com"],
                      "com.apple.developer.on-demand-install-capable": True,
                      "com.apple.developer.parent-application-identifiers":
                          ["%s.%s" % (team, main_id)]}),
                  info_extra={"NSAppClip": {"NSAppClipRequestEphemeralUserNotification": False,
                                            "NSAppClipRequestLocationConfirmation": False}})
    watch_ext = Bundle("Payload/Café.app/Watch/Watch.app/PlugIns/WatchExt.appex",
                       "app-extension", main_id + ".watchkitapp.watchkitextension", team,
                       "WatchExt", "Watch Extension",
                       ents=base_ents(team, main_id + ".watchkitapp.watchkitextension"),
                       info_extra={"NSExtension": {
                           "NSExtensionAttributes": {"WKAppBundleIdentifier":
                                                     main_id + ".watchkitapp"},
                           "NSExtensionPointIdentifier": "com.apple.watchkit"}})
    watch = Bundle("Payload/Café.app/Watch/Watch.app", "watch-app", main_id + ".watchkitapp",
                   team, "Watch", "Café Watch", ents=base_ents(team, main_id + ".watchkitapp"),
                   info_extra={"WKCompanionAppBundleIdentifier": main_id, "WKWatchKitApp": True},
                   children=[watch_ext])
    main = Bundle("Payload/Café.app", "app", main_id, team, "Café", "Café",
                  ents=base_ents(team, main_id, **{
                      AD: ["applinks:nested.example.com", "applinks:*.nested.example.com"],
                      "get-task-allow": False}),
                  url_types=[{"CFBundleURLName": main_id, "CFBundleURLSchemes": ["cafe"]}],
                  children=[share, clip, watch])
    return main


def appledouble(finder_info=b"APPLcafe"):
    """AppleDouble header with one Finder Info entry (what macOS puts in ._ files)."""
    fi = finder_info.ljust(32, b"\0")
    hdr = struct.pack(">II16sH", 0x00051607, 0x00020000, b"Mac OS X        ", 1)
    entry = struct.pack(">III", 9, len(hdr) + 12, len(fi))
    return (hdr + entry + fi).ljust(4096, b"\0")


def sample_nested():
    main = nested_bundles()
    entries = bundle_entries(main)
    decoy_team = "D3C0YAPP00"
    for path, bid in [("Payload/Other.app.bak", "com.example.decoy.bak"),
                      ("Payload/Deep/Inner.app", "com.example.decoy.inner")]:
        d = Bundle(path, "app", bid, decoy_team, "Decoy", "Decoy", signed=False,
                   xcent=base_ents(decoy_team, bid, **{AD: ["applinks:decoy.example.com"]}))
        entries.append((path + "/Info.plist", d.info_bytes(), 0o100644))
    entries.sort(key=lambda e: e[0].encode())
    entries.append(("__MACOSX/Payload/._Café.app", appledouble(), 0o100644))
    entries.append(("__MACOSX/Payload/Café.app/._Info.plist", appledouble(b"\0" * 8), 0o100644))
    data = zip_bytes(entries, descriptors=True, dirs=True, deflate_dirs=True)
    return "Nested.ipa", data, list(all_bundles(main)), [
        "UTF-8 (NFC) name Payload/Café.app, zip flag bit 11; every entry (directories too) "
        "DEFLATED with data descriptors (flag bit 3).",
        "Decoys that are not bundles: Payload/Other.app.bak/Info.plist, "
        "Payload/Deep/Inner.app/Info.plist (two levels deep) and __MACOSX/ AppleDouble files."]


def profile_sample_bundle():
    team, bid = "PR0F1LE123", "com.example.profile"
    ents = base_ents(team, bid, **{
        AD: ["applinks:profile.example.com", "applinks:staging.profile.example.com?mode=developer"],
        "get-task-allow": True,
        "keychain-access-groups": ["%s.%s" % (team, bid)]})
    prof = profile_plist("iOS Team Provisioning Profile: *", team, "Profile Team", "Wildcard",
                         "6f1e8a44-2b1c-4d6e-9a0b-1c2d3e4f5a6b", {
                             "application-identifier": team + ".*",
                             "com.apple.developer.team-identifier": team,
                             AD: "*",
                             "get-task-allow": True,
                             "keychain-access-groups": [team + ".*"]},
                         devices=UDIDS)
    return Bundle("Payload/Profile.app", "app", bid, team, "Profile", "Profile Dev",
                  ents=ents, slices=[("arm64", "xml", None)],
                  url_types=[{"CFBundleURLName": bid, "CFBundleURLSchemes": ["profileapp"]}],
                  xcent=base_ents(team, bid, **{AD: ["applinks:old.profile.example.com"],
                                                "get-task-allow": True}),
                  profile=(prof, "definite"))


def sample_profile():
    b = profile_sample_bundle()
    return "Profile.ipa", zip_bytes(bundle_entries(b), dirs=True, zip64=True), [b], [
        "ZIP64 archive (ZIP64 extra fields in local and central headers, ZIP64 EOCD).",
        "Signature has XML entitlements only (no DER blob).",
        "archived-expanded-entitlements.xcent is STALE: its associated domains "
        "[applinks:old.profile.example.com] disagree with the signature -> warn."]


def enterprise_bundle():
    team, bid = "ENT3RPR1S3", "com.example.enterprise"
    ents = base_ents(team, bid, **{
        AD: ["applinks:enterprise.example.com",
             "applinks:*.corp.enterprise.example.com?mode=managed"],
        "get-task-allow": False,
        "keychain-access-groups": ["%s.%s" % (team, bid)]})
    prof = profile_plist("Enterprise In-House", team, "Enterprise Corp", "Enterprise App",
                         "0b7c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3", {
                             "application-identifier": "%s.%s" % (team, bid),
                             "com.apple.developer.team-identifier": team,
                             AD: "*",
                             "get-task-allow": False,
                             "keychain-access-groups": [team + ".*"]},
                         all_devices=True)
    return Bundle("Payload/Enterprise.app", "app", bid, team, "Enterprise", "Enterprise",
                  ents=ents, slices=[("arm64", "binary", "set")],
                  url_types=[{"CFBundleURLName": bid, "CFBundleURLSchemes": ["enterprise-app"]}],
                  profile=(prof, "indefinite"))


def sample_enterprise():
    b = enterprise_bundle()
    return "Enterprise.ipa", zip_bytes(bundle_entries(b), dirs=True), [b], [
        "embedded.mobileprovision in BER indefinite-length form with a chunked (0x24) "
        "OCTET STRING; ProvisionsAllDevices=true.",
        "Slot 5 entitlements blob carries a BINARY plist (bplist00); slot 7 DER is a bare SET."]


def sample_simulator():
    team, bid = "S1MULAT0R9", "com.example.simulator"
    ents = base_ents(team, bid, **{AD: ["applinks:sim.example.com", "webcredentials:sim.example.com"],
                                   "get-task-allow": True})
    b = Bundle("Payload/Simulator.app", "app", bid, team, "Simulator", "Simulator Build",
               url_types=[{"CFBundleURLName": bid, "CFBundleURLSchemes": ["simapp"]}],
               info_extra={"CFBundleSupportedPlatforms": ["iPhoneSimulator"],
                           "DTPlatformName": "iphonesimulator"},
               signed=False, simulator_ents=ents)
    return "Simulator.ipa", zip_bytes(bundle_entries(b), dirs=True), [b], [
        "A simulator build, zipped as CI pipelines ship it: no entitlements in a code signature; "
        "they sit in the executable's __TEXT,__entitlements section (XML plist), and "
        "LC_BUILD_VERSION names the iOS Simulator platform."]


def sample_simulator_adhoc():
    team, bid = "S1MADH0C42", "com.example.simadhoc"
    ents = base_ents(team, bid, **{AD: ["applinks:adhoc.example.com",
                                        "webcredentials:adhoc.example.com"],
                                   "get-task-allow": True})
    b = Bundle("Payload/SimulatorAdHoc.app", "app", bid, team, "SimulatorAdHoc",
               "Ad-hoc Simulator Build",
               url_types=[{"CFBundleURLName": bid, "CFBundleURLSchemes": ["simadhoc"]}],
               info_extra={"CFBundleSupportedPlatforms": ["iPhoneSimulator"],
                           "DTPlatformName": "iphonesimulator"},
               ents={"get-task-allow": True}, adhoc=True, simulator_ents=ents)
    return "SimulatorAdHoc.ipa", zip_bytes(bundle_entries(b), dirs=True), [b], [
        "An ad hoc signed simulator build, as Xcode writes it: the code signature (CodeDirectory "
        "flags CS_ADHOC 0x2, no team identifier) carries only get-task-allow, in an XML and a "
        "DER blob; the real entitlements (application-identifier, team identifier, associated "
        "domains) sit in the executable's __TEXT,__entitlements section, and LC_BUILD_VERSION "
        "names the iOS Simulator platform.",
        "The effective source is simulator-entitlements-section (team S1MADH0C42, distribution "
        "simulator); the code-signature sources are still listed but not effective."]


SAMPLES = [sample_xcent_only, sample_store, sample_fat, sample_nested, sample_profile,
           sample_enterprise, sample_simulator, sample_simulator_adhoc]

SAMPLE_README = """# Sample IPAs

Generated by `python3 scripts/make-samples.py` (do not edit by hand; `--check` verifies
that the committed files match the generator). `EXPECTED.json` lists, per sample and
per bundle, what `ipalinks` should report. Executables are tiny but structurally real
Mach-O files with real page hashes; no signature is cryptographically valid.

- **Simulator.ipa**: a simulator build (a zipped `.app`, as CI pipelines produce): no code
  signature; entitlements (`applinks:`/`webcredentials:sim.example.com`) come from the
  executable's `__TEXT,__entitlements` section, and `LC_BUILD_VERSION` names the simulator.
- **SimulatorAdHoc.ipa**: an ad hoc signed simulator build, as Xcode writes one. The code
  signature (CodeDirectory flag `CS_ADHOC`, no team identifier) carries only `get-task-allow`
  in its XML and DER blobs; the real entitlements (team `S1MADH0C42`,
  `applinks:`/`webcredentials:adhoc.example.com`) are in the `__TEXT,__entitlements` section,
  which is the effective source. `LC_BUILD_VERSION` names the simulator.
- **XcentOnly.ipa**: the unsigned case. The executable has no `LC_CODE_SIGNATURE`, so
  entitlements (associated domains `applinks:`/`webcredentials:xcent.example.com`) come
  only from `archived-expanded-entitlements.xcent`. XML `Info.plist` with two
  `CFBundleURLTypes` entries of one scheme each.
- **Store.ipa**: an App Store-shaped download. Binary `Info.plist`, thin arm64 executable with
  `LC_ENCRYPTION_INFO_64` cryptid=1 (the signature in `__LINKEDIT` is still readable),
  agreeing XML and DER (`[APPLICATION 16]`) entitlements with five associated domains
  (wildcard, `?mode=developer`, webcredentials, activitycontinuation). There is no xcent
  and no profile; `SC_Info/Store.sinf`, `META-INF/` and `iTunesMetadata.plist` are
  present, and the zip has no directory entries. `LSApplicationQueriesSchemes`
  must not be reported as URL schemes.
- **Fat.ipa**: a universal `0xcafebabe` executable with armv7 (32-bit, `LC_SEGMENT`) and
  arm64 slices, aligned to 2^14. Each slice is signed with the same entitlements, the
  armv7 DER as a bare `SET` and the arm64 DER in the `[APPLICATION 16]` form. Both slices
  carry `LC_ENCRYPTION_INFO(_64)` with cryptid=0 (not encrypted). One URL type has no
  schemes.
- **Nested.ipa**: nested bundles under a non-ASCII main app `Payload/Café.app`: UTF-8 names
  with flag bit 11, every entry deflated and written with data descriptors (bit 3). It
  contains `PlugIns/Share.appex` (no associated domains), `AppClips/Clip.app`
  (`appclips:` plus parent-application-identifiers), and `Watch/Watch.app` with its own
  `PlugIns/WatchExt.appex`. It also has decoys that must not be reported as apps:
  `__MACOSX/` AppleDouble files, `Payload/Other.app.bak/` and `Payload/Deep/Inner.app/`.
- **Profile.ipa**: a development build in a ZIP64 archive. The signature has XML
  entitlements only, with `get-task-allow` true and a `?mode=developer` domain.
  `embedded.mobileprovision` is definite-length DER CMS with two provisioned devices
  and wildcard entitlements (`associated-domains` = `*`). A stale xcent lists a different
  domain, so the tool should warn about the disagreement.
- **Enterprise.ipa**: an in-house build. `embedded.mobileprovision` uses BER indefinite
  lengths and a chunked constructed OCTET STRING with `ProvisionsAllDevices`. The slot-5
  entitlements blob holds a binary plist and the slot-7 DER is a bare `SET`. It includes
  a `?mode=managed` domain.
"""

# ---------------------------------------------------------------------------
# Fixtures
# ---------------------------------------------------------------------------

FX_TEAM = "F1XTURE000"
FIXTURE_DOCS = {}  # path -> one-line description (Tests/Fixtures/README.md)


def fixture_bundle(name, **kw):
    bid = "com.example.fixture." + name.lower()
    kw.setdefault("ents", base_ents(FX_TEAM, bid, **{AD: ["applinks:%s.fixture.example.com"
                                                          % name.lower()]}))
    return Bundle("Payload/%s.app" % name, "app", bid, FX_TEAM, name, name, **kw)


def fixture_ipa(b, **kw):
    return zip_bytes(bundle_entries(b, **kw), dirs=True)


def fixtures(store_ipa):
    out = {}

    def fx(path, data, doc):
        out[path] = data
        FIXTURE_DOCS[path] = doc

    # --- bad IPAs -------------------------------------------------------------
    fx("bad/not-a-zip.ipa", b"This is not a zip archive, just text pretending to be an IPA.\n",
       "plain text with an .ipa name: fail with a clear 'not a zip archive' error, exit non-zero.")
    fx("bad/truncated.ipa", store_ipa[:int(len(store_ipa) * 0.6)],
       "samples/Store.ipa cut at 60% (no central directory): report a corrupt/truncated "
       "archive error, no crash.")
    fx("bad/no-payload.ipa", zip_bytes([("README.txt", b"No Payload directory here.\n",
                                         0o100644)]),
       "valid zip containing only README.txt: error 'no Payload/<Name>.app'.")

    # 64 MiB of zeros deflated in 1 MiB chunks (the output is ~64 KB).
    b = fixture_bundle("Bomb")
    entries = [e for e in bundle_entries(b) if not e[0].endswith("/Info.plist")]
    comp = zlib.compressobj(DEFLATE_LEVEL, zlib.DEFLATED, -15)
    chunk = bytes(1 << 20)
    cparts, crc = [], 0
    for _ in range(64):
        cparts.append(comp.compress(chunk))
        crc = zlib.crc32(chunk, crc)
    cparts.append(comp.flush())
    zbuf = io.BytesIO()
    zw = ZipWriter(zbuf)
    for name, data, mode in entries:
        zw.add(name, data, mode=mode)
    zw.add_raw("Payload/Bomb.app/Info.plist", b"".join(cparts), crc, 64 << 20)
    zw.close()
    fx("bad/bomb.ipa", zbuf.getvalue(),
       "Payload/Bomb.app/Info.plist inflates to 64 MiB of zeros (~64 KB deflated): refuse "
       "oversized metadata entries (size cap) without inflating it all into memory.")

    b = fixture_bundle("Locked")
    zbuf = io.BytesIO()
    zw = ZipWriter(zbuf)
    for name, data, mode in bundle_entries(b):
        zw.add(name, data, mode=mode, flags=1 if name.endswith("/Info.plist") else 0)
    zw.close()
    fx("bad/encrypted-entry.ipa", zbuf.getvalue(),
       "Info.plist entry has general-purpose bit 0 (encrypted) set in local and central "
       "headers (data is actually plain): report the entry as encrypted/unreadable, no crash.")

    b = fixture_bundle("Trav")
    entries = [("../../evil.txt", b"evil\n", 0o100644),
               ("Payload/../../escape.txt", b"escape\n", 0o100644),
               ("/abs/path.txt", b"absolute\n", 0o100644)] + bundle_entries(b)
    fx("bad/path-traversal.ipa", zip_bytes(entries, dirs=False),
       "entries ../../evil.txt, Payload/../../escape.txt, /abs/path.txt plus a valid "
       "Payload/Trav.app (applinks:trav.fixture.example.com): never write or resolve those "
       "paths; ignore them (optionally warn) and still report Trav.app.")

    def set_count(sig):
        sig.count_override = 0xFFFFFFFF
    fx("bad/absurd-superblob-count.ipa",
       fixture_ipa(fixture_bundle("Count"), sig_patch=set_count),
       "SuperBlob count is 0xFFFFFFFF: bound the index by the blob length, report a "
       "signature error, still report Info.plist facts (com.example.fixture.count).")

    def past_eof(exe):
        p, _ = find_superblob(exe)
        return exe[:p + 8] + struct.pack("<I", 0xFFFFFFF0) + exe[p + 12:]
    fx("bad/sig-offset-past-eof.ipa", fixture_ipa(fixture_bundle("PastEOF"), post_exe=past_eof),
       "LC_CODE_SIGNATURE dataoff = 0xFFFFFFF0 (dataoff+datasize overflows 32 bits): "
       "reject with a bounds error (no wraparound read), still report Info.plist facts.")

    def der_overflow(sig):
        sig.xml = None
        sig.der = bytes.fromhex("7084FFFFFFF0020101B000")
    fx("bad/der-length-overflow.ipa",
       fixture_ipa(fixture_bundle("DerOverflow"), sig_patch=der_overflow),
       "DER entitlements blob (no XML blob) whose outer element claims length "
       "0x84 FF FF FF F0: fail DER parsing without huge allocation; no entitlements from "
       "the signature, warning, Info.plist facts still reported.")

    def no_entitlements(sig):
        sig.xml = None
        sig.der = None
    bid = "com.example.fixture.noentitlements"
    fx("bad/signed-without-entitlements.ipa",
       fixture_ipa(fixture_bundle("NoEntitlements", xcent=base_ents(FX_TEAM, bid, **{
           AD: ["applinks:noentitlements.fixture.example.com"]})), sig_patch=no_entitlements),
       "a team-signed executable with no entitlements blob, and an .xcent claiming "
       "applinks:noentitlements.fixture.example.com: the .xcent stands in, with a "
       "signature.no-entitlements warning (iOS grants such an app none).")

    def break_magic(exe):
        _, off = find_superblob(exe)
        return exe[:off] + struct.pack(">I", 0xDEADBEEF) + exe[off + 4:]
    fx("bad/broken-signature.ipa",
       fixture_ipa(fixture_bundle("Broken"), post_exe=break_magic),
       "SuperBlob magic overwritten with 0xDEADBEEF: warn 'unrecognised code signature' and "
       "still report Info.plist facts (com.example.fixture.broken, no entitlements).")

    # --- Mach-O --------------------------------------------------------------
    small = dict(text_size=SEG_PAGE)

    def ents_for(name, domains):
        bid = "com.example.fixture." + name
        return bid, base_ents(FX_TEAM, bid, **{AD: domains})

    def signed(arch, name, domains, der_form="app16", der_domains=None, **kw):
        bid, ents = ents_for(name, domains)
        der_ents = ents if der_domains is None else ents_for(name, der_domains)[1]
        sig = Sig(xml=xml_plist(ents), der=der_entitlements(der_ents, der_form))
        for k, v in kw.pop("sig_attrs", {}).items():
            setattr(sig, k, v)
        return build_macho(arch, ident=bid, team=FX_TEAM, sig=sig, **small, **kw)[0]

    thin64 = signed("arm64", "thin64", ["applinks:thin64.fixture.example.com"])
    fx("macho/thin64-xml-der.bin", thin64,
       "thin arm64 Mach-O, XML + DER ([APPLICATION 16]) entitlements agreeing: "
       "applinks:thin64.fixture.example.com, team F1XTURE000.")
    fx("macho/thin32.bin",
       signed("armv7", "thin32", ["applinks:thin32.fixture.example.com"], der_form="set"),
       "thin armv7 (0xfeedface, LC_SEGMENT) Mach-O, XML + bare-SET DER entitlements: "
       "applinks:thin32.fixture.example.com.")
    fx("macho/fat64.bin",
       build_fat([("arm64", signed("arm64", "fat64", ["applinks:fat64.fixture.example.com"]))],
                 fat64=True),
       "0xcafebabf fat64 header (fat_arch_64) with one arm64 slice at 0x4000: "
       "applinks:fat64.fixture.example.com.")
    cls = (b"\xca\xfe\xba\xbe\x00\x00\x00\x34" + struct.pack(">H", 5)
           + b"\x07\x00\x02" + b"\x01" + struct.pack(">H", 1) + b"A"
           + b"\x07\x00\x04" + b"\x01" + struct.pack(">H", 16) + b"java/lang/Object"
           + struct.pack(">HHHHHHH", 0x21, 1, 3, 0, 0, 0, 0))
    fx("macho/java.class", cls,
       "a real (empty) Java class: CA FE BA BE 00 00 00 34 (nfat_arch would be 52): "
       "must NOT be treated as a fat Mach-O; report 'not a Mach-O'.")
    ncmds_size = struct.unpack_from("<I", thin64, 20)[0]
    fx("macho/truncated.bin", thin64[:32 + ncmds_size // 2],
       "thin64-xml-der.bin cut in the middle of its load commands: bounds error, no crash.")
    fx("macho/disagree-xml-der.bin",
       signed("arm64", "disagree", ["applinks:a.example.com"],
              der_domains=["applinks:b.example.com"]),
       "XML entitlements say [applinks:a.example.com], DER says [applinks:b.example.com]: "
       "report the disagreement (iOS enforces DER on modern systems).")
    fx("macho/fat-slices-disagree.bin",
       build_fat([("armv7", signed("armv7", "slices", ["applinks:armv7.example.com"],
                                   der_form="set")),
                  ("arm64", signed("arm64", "slices", ["applinks:arm64.example.com"]))]),
       "fat armv7 + arm64 whose slices carry different associated domains "
       "(applinks:armv7.example.com vs applinks:arm64.example.com): warn per slice.")
    _, second = ents_for("twoblobs", ["applinks:second.example.com"])
    fx("macho/two-entitlement-blobs.bin",
       signed("arm64", "twoblobs", ["applinks:first.example.com"],
              sig_attrs={"extra_blobs": [(5, blob(CSMAGIC_EMBEDDED_ENTITLEMENTS,
                                                  xml_plist(second)))]}),
       "two slot-5 XML entitlement blobs (first.example.com, then second.example.com); "
       "the kernel rejects this: report an error/warning, don't silently pick one.")

    # --- plists --------------------------------------------------------------
    info_b = fixture_bundle("PlistInfo", url_types=[
        {"CFBundleURLName": "com.example.fixture.plistinfo",
         "CFBundleURLSchemes": ["plistinfo"]}])
    fx("plists/info-binary.plist", bin_plist(info_b.info()),
       "binary (bplist00) Info.plist: com.example.fixture.plistinfo, scheme plistinfo.")
    fx("plists/info-xml.plist", xml_plist(info_b.info()),
       "the same Info.plist as XML: parse to the same values as info-binary.plist.")
    depth = 10000
    fx("plists/deep-nesting.plist",
       b'<?xml version="1.0" encoding="UTF-8"?>\n'
       b'<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" '
       b'"http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n<plist version="1.0">\n'
       + b"<array>" * depth + b"</array>" * depth + b"\n</plist>\n",
       "XML plist nested 10,000 arrays deep: reject (depth limit) or parse without stack "
       "overflow; never crash.")
    fx("plists/not-a-plist.plist", b"{ \"this\": \"is JSON, not a property list\" }\n",
       "JSON text named .plist: plist parse error, no crash.")

    # --- profiles ------------------------------------------------------------
    dev = profile_sample_bundle().profile[0]
    ent = enterprise_bundle().profile[0]
    adhoc_team, store_team = "AD0HOC0001", "APPST0RE01"
    adhoc = profile_plist("Ad Hoc Distribution", adhoc_team, "AdHoc Team", "AdHoc App",
                          "aaaaaaaa-0000-4000-8000-000000000001", {
                              "application-identifier": adhoc_team + ".com.example.adhoc",
                              "com.apple.developer.team-identifier": adhoc_team,
                              AD: ["applinks:adhoc.example.com"],
                              "get-task-allow": False}, devices=UDIDS)
    store = profile_plist("App Store Distribution", store_team, "Store Team", "Store App",
                          "bbbbbbbb-0000-4000-8000-000000000002", {
                              "application-identifier": store_team + ".com.example.appstore",
                              "beta-reports-active": True,
                              "com.apple.developer.team-identifier": store_team,
                              AD: "*",
                              "get-task-allow": False})
    for name, p, enc, desc in [
            ("definite", dev, cms_definite, "definite-length DER CMS"),
            ("indefinite", ent, cms_indefinite,
             "BER indefinite-length CMS with chunked constructed OCTET STRING"),
            ("adhoc", adhoc, cms_definite, "definite-length DER CMS"),
            ("appstore", store, cms_definite, "definite-length DER CMS")]:
        fx("profiles/%s.mobileprovision" % name, enc(xml_plist(p)),
           "%s; kind %s, team %s, Name %r%s." % (
               desc, profile_kind(p), p["TeamIdentifier"][0], p["Name"],
               ", %d devices" % len(p["ProvisionedDevices"]) if "ProvisionedDevices" in p
               else (", ProvisionsAllDevices" if p.get("ProvisionsAllDevices") else
                     ", no devices")))
    fx("profiles/plain-xml.mobileprovision", xml_plist(dev),
       "the development profile's plist with no CMS envelope (as some tools save it): "
       "accept it, kind development, team PR0F1LE123.")
    return out


FIXTURES_README_HEAD = """# Test fixtures

Generated by `python3 scripts/make-samples.py`; do not edit by hand. One line per
fixture: what it is, then what ipalinks should do with it.

"""


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------


def generate(root):
    """Write everything below root; return the sorted list of relative paths."""
    files = {}
    expected = []
    store = None
    for fn in SAMPLES:
        name, data, bundles, notes = fn()
        files["samples/" + name] = data
        if name == "Store.ipa":
            store = data
        expected.append({"file": name, "notes": notes,
                         "bundles": [b.expected() for b in bundles]})
    files["samples/EXPECTED.json"] = (json.dumps(expected, indent=2, ensure_ascii=False)
                                      + "\n").encode("utf-8")
    files["samples/README.md"] = SAMPLE_README.encode()
    FIXTURE_DOCS.clear()
    fx = fixtures(store)
    for path, data in fx.items():
        files["Tests/Fixtures/" + path] = data
    lines = ["- `%s`: %s" % (p, FIXTURE_DOCS[p]) for p in sorted(FIXTURE_DOCS)]
    files["Tests/Fixtures/README.md"] = (FIXTURES_README_HEAD + "\n".join(lines)
                                         + "\n").encode()
    for rel, data in sorted(files.items()):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    return sorted(files)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="regenerate into a temp dir and fail if committed files differ")
    ap.add_argument("--out", default=REPO, help="output root (default: the repo root)")
    args = ap.parse_args()
    if not args.check:
        written = generate(args.out)
        for rel in written:
            print("%9d  %s" % (os.path.getsize(os.path.join(args.out, rel)), rel))
        return 0
    tmp = tempfile.mkdtemp(prefix="make-samples-")
    try:
        written = generate(tmp)
        bad = []
        for rel in written:
            mine = os.path.join(args.out, rel)
            with open(os.path.join(tmp, rel), "rb") as f:
                want = f.read()
            if not os.path.exists(mine):
                bad.append("missing: " + rel)
            else:
                with open(mine, "rb") as f:
                    if f.read() != want:
                        bad.append("differs: " + rel)
        gen = set(written)
        for top in ("samples", os.path.join("Tests", "Fixtures")):
            for dirpath, _, names in os.walk(os.path.join(args.out, top)):
                for n in names:
                    rel = os.path.relpath(os.path.join(dirpath, n), args.out)
                    rel = rel.replace(os.sep, "/")
                    # Tests/Fixtures/fuzz/ holds committed fuzz findings, which no generator makes.
                    if rel.startswith("Tests/Fixtures/fuzz/"):
                        continue
                    if rel not in gen and (top != "samples" or n.endswith(".ipa")):
                        print("warning: not produced by the generator: " + rel,
                              file=sys.stderr)
        for line in bad:
            print(line, file=sys.stderr)
        if bad:
            print("%d file(s) out of date; run python3 scripts/make-samples.py (zlib %s)"
                  % (len(bad), zlib.ZLIB_RUNTIME_VERSION), file=sys.stderr)
            return 1
        print("ok: %d files match" % len(written))
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
