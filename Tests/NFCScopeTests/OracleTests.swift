import Foundation
import Testing
@testable import NFCScope

// Checks against decoders nobody on this project wrote (issue 9, "Oracle checks in the
// suite"). Each oracle is optional: when it is not installed the test is skipped and
// says why. /work/shared/notes/oracles.md lists the oracles and where they are wrong.

private let tsharkExecutable: String? = ["/usr/bin/tshark", "/usr/local/bin/tshark", "/opt/homebrew/bin/tshark"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

private func runTool(_ executable: String, _ args: [String], stdin: Data? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = args
    let out = Pipe()
    process.standardOutput = out
    process.standardError = FileHandle.nullDevice
    let input = Pipe()
    if stdin != nil { process.standardInput = input }
    try process.run()
    if let stdin {
        input.fileHandleForWriting.write(stdin)
        try? input.fileHandleForWriting.close()
    }
    let data = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}

/// The link-type-264 captures among the fixtures (classic pcap; `LinkTest.pcapRecords`
/// reads only those).
private let iso14443Fixtures: [String] = Fixtures.captureNames().filter {
    $0.hasSuffix(".pcap") && !LinkTest.pcapRecords(Fixtures.bytes($0)).isEmpty
}

/// One frame as tshark 4.0 dissects it.
private struct TsharkFrame {
    var event: String
    var crcStatus: String
    var pcb: UInt8?
    var malformed: Bool
}

/// Where tshark 4.0 is known to be wrong (oracles.md, "Where tshark 4.0 is wrong"), as a
/// judgement on one of our frames: a disagreement there is tshark's error, not ours.
private enum TsharkKnownError: String, CaseIterable {
    /// ISO-DEP CRC verified only after an ATS or ATTRIB answer in the same field session.
    case crcOnlyAfterActivation = "ISO-DEP CRC verified only after ATS/ATTRIB"
    /// ATS CRC placed after TL bytes instead of at the frame end.
    case atsCRCPosition = "ATS CRC position"
    /// HLTB decoded as HLTA with CRC_A; its answer malformed.
    case hltbAsHLTA = "HLTB as HLTA"
    /// Proprietary Type 2 / Ultralight C frames after SAK 00 decoded as I/R/S blocks.
    case proprietaryAsBlocks = "proprietary frames after SAK 00 as blocks"
    /// Sniffed frames cut before their CRC (WTX f201, R(NAK) ba00) are malformed.
    case cutBeforeCRC = "frame cut before its CRC"
    /// S(DESELECT) always malformed (1-byte INF assumed on every S-block).
    case deselectMalformed = "S(DESELECT) malformed"
    /// Found while writing this test (not in oracles.md): a byte that fits no ISO 14443-4
    /// PCB coding (FF: b3 and b1 set, which no S-block has) is dissected as S(WTX).
    case invalidPCBAsBlock = "invalid PCB dissected as a block"
}

private func tsharkFrames(_ path: String) throws -> [TsharkFrame] {
    let text = try runTool(tsharkExecutable ?? "tshark", [
        "-r", path, "-T", "fields", "-E", "occurrence=f", "-e", "frame.number", "-e", "iso14443.event",
        "-e", "iso14443.crc.status", "-e", "iso14443.pcb", "-e", "_ws.malformed",
    ])
    return text.split(separator: "\n").map { line in
        let c = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        func col(_ i: Int) -> String { i < c.count ? c[i] : "" }
        let pcb = col(3).hasPrefix("0x") ? UInt8(col(3).dropFirst(2), radix: 16) : nil
        return TsharkFrame(event: col(1), crcStatus: col(2), pcb: pcb, malformed: !col(4).isEmpty)
    }
}

@Suite("Oracles: tshark, BER-TLV and nfcpy")
struct OracleTests {
    @Test(.enabled(if: tsharkExecutable != nil, "tshark is not installed: frames not compared with Wireshark"),
          arguments: iso14443Fixtures)
    func tsharkAgreesOnFramesDirectionsCRCsAndBlocks(_ name: String) throws {
        let theirs = try tsharkFrames(fixturePath(name))
        let (sink, _) = decodeFixture(name)
        let ours = sink.frames
        #expect(theirs.count == ours.count, "frame count")
        var activated = false
        var proprietary = false
        var unexplained: [String] = []
        var excused: [TsharkKnownError: Int] = [:]
        for (t, o) in zip(theirs, ours) {
            // Direction and field events.
            let direction: String = switch (o.event, o.dir) {
            case (.fieldOn?, _): "on"
            case (.fieldOff?, _): "off"
            case (nil, .reader?): "reader"
            case (nil, .card?): "card"
            default: "?"
            }
            let theirDirection: String = switch t.event {
            case "0xfc": "on"
            case "0xfd": "off"
            case "0xfe", "0xfa": "reader"
            case "0xff", "0xfb": "card"
            default: "?"
            }
            if direction != theirDirection { unexplained.append("frame \(o.n): direction \(direction) vs \(theirDirection)") }
            if o.event != nil { activated = false; proprietary = false; continue }
            if o.info.hasPrefix("ATS") || o.info.hasPrefix("ATTRIB answer") { activated = true }
            if o.info.hasPrefix("SAK") { proprietary = !o.info.contains("ISO-DEP") && o.info.contains("uid complete") }
            if o.info.hasPrefix("REQA") || o.info.hasPrefix("WUPA") { activated = false }
            func excuse(_ e: TsharkKnownError) { excused[e, default: 0] += 1 }
            let isBlock = o.linkInfo.hasPrefix("block(")
            // CRC verdicts, where both give one.
            let theirCRC: CRCStatus? = t.crcStatus == "1" ? .ok : t.crcStatus == "0" ? .bad : nil
            if let theirCRC, o.crc != .none, theirCRC != o.crc {
                if o.info.hasPrefix("ATS") { excuse(.atsCRCPosition) }
                else if o.info.hasPrefix("HLTB") { excuse(.hltbAsHLTA) }
                else { unexplained.append("frame \(o.n) (\(o.info)): CRC \(o.crc) vs tshark \(theirCRC)") }
            } else if theirCRC == nil, o.crc != .none, isBlock, !activated {
                excuse(.crcOnlyAfterActivation)
            }
            // ISO-DEP blocks: the same PCB wherever either side sees a block.
            if isBlock {
                let ourPCB = UInt8(o.hex.prefix(2), radix: 16)
                if t.pcb == nil {
                    if o.crc == .none { excuse(.cutBeforeCRC) }
                    else if !activated { excuse(.crcOnlyAfterActivation) }
                    else { unexplained.append("frame \(o.n) (\(o.info)): a block tshark does not see") }
                } else if t.pcb != ourPCB {
                    unexplained.append("frame \(o.n): PCB \(o.hex.prefix(2)) vs tshark \(t.pcb.map { String($0, radix: 16) } ?? "-")")
                } else if t.malformed {
                    if o.info.hasPrefix("S(DESELECT)") { excuse(.deselectMalformed) }
                    else if o.crc == .none { excuse(.cutBeforeCRC) }
                }
            } else if let pcb = t.pcb {
                if ISODEPBlockParser.kind(ofPCB: pcb) == nil { excuse(.invalidPCBAsBlock) }
                else if proprietary { excuse(.proprietaryAsBlocks) }
                else if o.info.hasPrefix("HLTB") { excuse(.hltbAsHLTA) }
                else { unexplained.append("frame \(o.n) (\(o.info.isEmpty ? o.hex : o.info)): tshark sees a block (PCB \(String(pcb, radix: 16)))") }
            }
        }
        #expect(unexplained.isEmpty, "\(name): \(unexplained.joined(separator: "; "))")
        if !excused.isEmpty {
            // Visible in the test log: where tshark 4.0's known errors were met.
            print("\(name): tshark 4.0 known errors met: " + excused.map { "\($0.key.rawValue) x\($0.value)" }.sorted().joined(separator: ", "))
        }
    }
}

// MARK: BER-TLV trees against an independent parser

/// Python with PyPI's `ber-tlv` (0.0.6), when installed (`.ci/deps` tries to).
private let pythonWithBERTLV: String? = {
    for python in ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
        where FileManager.default.isExecutableFile(atPath: python) {
        if let out = try? runTool(python, ["-c", "import ber_tlv.tlv; print('yes')"]), out.hasPrefix("yes") { return python }
    }
    return nil
}()

/// Reads our JSON Lines on stdin; for every APDU TLV tree without error nodes, parses the
/// raw bytes with ber-tlv and prints one line per difference, then `checked N`.
private let berTLVScript = #"""
import sys, json
from ber_tlv.tlv import Tlv

def ours(nodes):
    out = []
    for n in nodes:
        tag = int(n["tag"], 16)
        if "children" in n or constructed(tag):
            out.append((tag, ours(n.get("children", []))))
        else:
            out.append((tag, bytes.fromhex(n["hex"])))
    return out

def constructed(tag):
    first = tag
    while first > 0xFF:
        first >>= 8
    return first & 0x20 != 0

def theirs_tree(raw):
    # ber-tlv's own recursion also parses primitive values that happen to look like
    # TLV; only constructed tags (bit 6 of the first tag byte, X.690 8.1.2.5) hold TLV.
    out = []
    for tag, value in Tlv.parse(raw, recursive=False):
        out.append((tag, theirs_tree(value) if constructed(tag) else value))
    return out

def has_error(nodes):
    return any("error" in n or n.get("children_error") or n.get("indefinite") or has_error(n.get("children", [])) for n in nodes)

checked = 0
for line in sys.stdin:
    d = json.loads(line)
    if d.get("type") != "apdu":
        continue
    for key, raw in (("tlv", d.get("response")), ("command_tlv", d.get("data"))):
        tree = d.get(key)
        if not tree or raw is None or has_error(tree):
            continue
        mine = ours(tree)
        try:
            theirs = theirs_tree(bytes.fromhex(raw))
        except Exception as e:
            print("frames %s %s: ber-tlv refuses %s: %s" % (d["frames"], key, raw, e))
            continue
        if theirs != mine:
            print("frames %s %s: ours %s theirs %s" % (d["frames"], key, mine, theirs))
        checked += 1
print("checked %d" % checked)
"""#

extension OracleTests {
    static let apduFixtures = ["hf_visa_apple_transit_bypass.derived.pcap", "hf_visa_apple_normal.derived.pcap",
                               "hf_visa_apple_ecp.derived.pcap", "hf_mfdes_sniff.trace", "hf_seos_sniff_fc54_cn64001.trace",
                               "hf_mfp_mad_sl3.trace", "x.pcap", "edge14443.pcap", "test_NFC-A_106kbps_004.json",
                               "test_NFC-A_424kbps_002.json", "libnfc-apdu-demo-debug.log"]

    @Test(.enabled(if: pythonWithBERTLV != nil, "python3 with PyPI ber-tlv is not installed: TLV trees not compared"))
    func everyTLVTreeMatchesAnIndependentBERTLVParser() throws {
        var total = 0
        for name in Self.apduFixtures {
            let out = OutputBuffer()
            _ = CaptureDecoder.decode(path: fixturePath(name), into: JSONLinesWriter(output: out))
            let report = try runTool(pythonWithBERTLV ?? "python3", ["-c", berTLVScript], stdin: Data(out.string.utf8))
            let lines = report.split(separator: "\n").map(String.init)
            #expect(lines.last?.hasPrefix("checked ") == true, "\(name): \(report)")
            #expect(lines.dropLast().isEmpty, "\(name): \(lines.dropLast().joined(separator: "\n"))")
            total += Int(lines.last?.dropFirst(8) ?? "") ?? 0
        }
        // The Visa sniffs alone hold more than twenty trees.
        #expect(total >= 20)
    }
}

// MARK: FeliCa command parsing against nfcpy

/// Python with nfcpy (1.0.4), when installed (`.ci/deps` tries to).
private let pythonWithNfcpy: String? = {
    for python in ["/usr/bin/python3", "/usr/local/bin/python3", "/root/.pyenv/shims/python3"]
        where FileManager.default.isExecutableFile(atPath: python) {
        if let out = try? runTool(python, ["-c", "import nfc.tag.tt3; print('yes')"]), out.hasPrefix("yes") { return python }
    }
    return nil
}()

/// Reads our JSON Lines; for every Read/Write Without Encryption record, takes the reader
/// frame's bytes and checks with nfcpy that (1) each service code read from the service
/// list (`ServiceCode.unpack`, little-endian, number << 6 | attribute) is the one we show,
/// with the same attribute kind, and (2) nfcpy's encoding (`BlockCode.pack`) of each block
/// as we read it (number, access mode, service index) is exactly the block list's bytes.
private let nfcpyScript = #"""
import sys, json
from nfc.tag.tt3 import ServiceCode, BlockCode

frames, records = {}, []
for line in sys.stdin:
    d = json.loads(line)
    if d.get("type") == "frame" and d.get("tech") == "nfc-f":
        frames[d["n"]] = d
    elif d.get("type") == "felica" and d.get("code") in ("06", "08") and d.get("frames"):
        records.append(d)

kinds = {0b0010: "random", 0b0011: "cyclic", 0b0100: "purse", 0b0101: "purse"}
checked = 0
for r in records:
    f = frames.get(r["frames"][0])
    if f is None or f.get("dir") != "reader":
        continue
    raw = bytes.fromhex(f["hex"])
    if f.get("framing") == "sync":
        raw = raw[2:]
    # LEN, code, IDm (8), number of services
    n = raw[10]
    services = [ServiceCode.unpack(raw[11 + 2 * i: 13 + 2 * i]) for i in range(n)]
    pos = 11 + 2 * n
    m = raw[pos]
    ours = [int(s["code"], 16) for s in r["services"]]
    theirs = [int(s) for s in services]
    if ours != theirs:
        print("frames %s: services ours %s theirs %s" % (r["frames"], ours, theirs))
    for s, sc in zip(r["services"], services):
        kind = kinds.get(sc.attribute >> 2, "?")
        if not s["attribute"].startswith(kind):
            print("frames %s: service %s attribute ours %r nfcpy %s" % (r["frames"], s["code"], s["attribute"], sc))
    blocks = r["blocks"]
    if len(blocks) != m:
        print("frames %s: %d blocks ours, %d in the list" % (r["frames"], len(blocks), m))
        continue
    encoded = b"".join(BlockCode(b["block"], b["access_mode"], [s["code"] for s in r["services"]].index(b["service"])).pack() for b in blocks)
    listed = raw[pos + 1: pos + 1 + len(encoded)]
    if encoded != listed:
        print("frames %s: block list %s, nfcpy encodes ours as %s" % (r["frames"], listed.hex(), encoded.hex()))
    checked += 1
print("checked %d" % checked)
"""#

extension OracleTests {
    @Test(.enabled(if: pythonWithNfcpy != nil, "python3 with PyPI nfcpy is not installed: FeliCa commands not compared"))
    func feliCaServiceAndBlockListsMatchNfcpy() throws {
        var total = 0
        for name in ["test_NFC-F_212kbps_002.json", "test_NFC-F_212kbps_003.json", "libnfc-nfc-read-forum-tag3-debug.log"] {
            let out = OutputBuffer()
            _ = CaptureDecoder.decode(path: fixturePath(name), into: JSONLinesWriter(output: out))
            let report = try runTool(pythonWithNfcpy ?? "python3", ["-c", nfcpyScript], stdin: Data(out.string.utf8))
            let lines = report.split(separator: "\n").map(String.init)
            #expect(lines.last?.hasPrefix("checked ") == true, "\(name): \(report)")
            #expect(lines.dropLast().isEmpty, "\(name): \(lines.dropLast().joined(separator: "\n"))")
            total += Int(lines.last?.dropFirst(8) ?? "") ?? 0
        }
        #expect(total >= 30)
    }
}
