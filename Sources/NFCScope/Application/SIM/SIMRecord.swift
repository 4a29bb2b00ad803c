// The `sim` record: one APDU exchange of a SIM trace as a UICC/SIM reads it (see
// SIMStage.swift; documented in docs/jsonl-schema.md). Rendered once per APDU.

public struct SIMRecord: DecodedRecord {
    public static var typeName: StaticString { "sim" }

    public var frames: ArraySlice<Int>
    public var cla: UInt8
    public var ins: UInt8
    public var p1: UInt8
    public var p2: UInt8
    var family: SIMCommands.Family?
    /// ETSI/3GPP name of the instruction in its class, nil when not known.
    public var name: StaticString?
    public var channel = 0
    /// The channel was not opened in the trace (its file position is not known).
    public var channelUnknown = false
    public var sw: UInt16?
    public var commandData = ByteView()
    public var responseData = ByteView()

    /// The file the command acts on (after a SELECT: the file selected), as a path of names.
    public var file: String?
    public var fid: UInt16?
    /// False when the last element of `file` has no name in sim-files.plugin.
    public var fileNamed = true
    public var selectMode: StaticString?
    public var selectReturn: StaticString?
    public var offset: Int?
    public var sfi: Int?
    public var sfiUnknown = false
    public var record: Int?
    public var recordMode: StaticString?
    public var keyReference: String?
    public var retries: Int?
    public var statusP1: StaticString?
    public var statusP2: StaticString?
    public var proactivePending: Int?

    public var channelAction: StaticString?
    public var targetChannel: Int?

    public var authContext: StaticString?
    public var rand: ByteView?
    public var autn: ByteView?
    public var authDataBrokenAt: Int?
    public var authResult: StaticString?
    public var res: ByteView?
    public var ck: ByteView?
    public var ik: ByteView?
    public var kc: ByteView?
    public var sres: ByteView?
    public var auts: ByteView?

    var cat: CATData?

    init(frames: ArraySlice<Int>, cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8) {
        self.frames = frames
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
    }
}

extension SIMRecord {
    public func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext) {
        out.ascii(",\"frames\":[")
        var first = true
        for n in frames {
            if !first { out.byte(0x2C) }
            first = false
            out.int(n)
        }
        out.byte(0x5D)
        if let family { out.ascii(",\"class\":\""); out.ascii(family.jsonName); out.byte(0x22) } else { out.ascii(",\"class\":null") }
        out.ascii(",\"channel\":"); out.int(channel)
        if channelUnknown { out.ascii(",\"channel_unknown\":true") }
        out.ascii(",\"command\":")
        if let name { out.byte(0x22); out.ascii(name); out.byte(0x22) } else { out.ascii("null") }
        codeMember(",\"ins\":\"", ins, out)
        if let file {
            out.ascii(",\"file\":\""); out.jsonEscaped(file); out.byte(0x22)
            if let fid { out.ascii(",\"fid\":\""); out.hex16(fid, uppercase: true); out.byte(0x22) }
            if !fileNamed { out.ascii(",\"file_named\":false") }
        }
        if let selectMode {
            out.ascii(",\"select_by\":\""); out.ascii(selectMode); out.byte(0x22)
            out.ascii(",\"select_target\":\""); out.hex(commandData, uppercase: true); out.byte(0x22)
        } else if ins == 0xA4 {
            codeMember(",\"select_p1\":\"", p1, out)
        }
        if let selectReturn { out.ascii(",\"select_return\":\""); out.ascii(selectReturn); out.byte(0x22) }
        if let offset { out.ascii(",\"offset\":"); out.int(offset) }
        if let sfi {
            out.ascii(",\"sfi\":"); out.int(sfi)
            if sfiUnknown { out.ascii(",\"sfi_known\":false") }
        }
        if let record { out.ascii(",\"record\":"); out.int(record) }
        if let recordMode { out.ascii(",\"record_mode\":\""); out.ascii(recordMode); out.byte(0x22) }
        if let keyReference { out.ascii(",\"key_reference\":\""); out.jsonEscaped(keyReference); out.byte(0x22) }
        if let retries { out.ascii(",\"retries_left\":"); out.int(retries) }
        if ins == 0xF2, family != .gsm {
            out.ascii(",\"status_p1\":"); quoted(statusP1, out)
            out.ascii(",\"status_p2\":"); quoted(statusP2, out)
        }
        if let channelAction {
            out.ascii(",\"channel_action\":\""); out.ascii(channelAction); out.byte(0x22)
            out.ascii(",\"target_channel\":"); if let targetChannel { out.int(targetChannel) } else { out.ascii("null") }
        }
        if ins == 0x88 || ins == 0x89, family != nil {
            out.ascii(",\"auth_context\":"); quoted(authContext, out)
            hexOrNull(",\"rand\":", rand, out)
            if autn != nil { hexOrNull(",\"autn\":", autn, out) }
            if let authDataBrokenAt { out.ascii(",\"auth_data_broken_at\":"); out.int(authDataBrokenAt) }
            if let authResult { out.ascii(",\"auth_result\":\""); out.ascii(authResult); out.byte(0x22) }
            if res != nil { hexOrNull(",\"res\":", res, out) }
            if ck != nil { hexOrNull(",\"ck\":", ck, out) }
            if ik != nil { hexOrNull(",\"ik\":", ik, out) }
            if sres != nil { hexOrNull(",\"sres\":", sres, out) }
            if kc != nil { hexOrNull(",\"kc\":", kc, out) }
            if auts != nil { hexOrNull(",\"auts\":", auts, out) }
        }
        if ins == 0x10, family == .uiccProprietary || family == .gsm {
            out.ascii(",\"terminal_profile\":\""); out.hex(commandData); out.byte(0x22)
        }
        if let cat { writeCAT(cat, out, context.registry) }
        if let proactivePending { out.ascii(",\"proactive_command_pending\":"); out.int(proactivePending) }
        out.ascii(",\"sw\":")
        if let sw { out.byte(0x22); out.hex16(sw, uppercase: true); out.byte(0x22) } else { out.ascii("null") }
    }

    private func writeCAT(_ cat: CATData, _ out: OutputBuffer, _ registry: Registry) {
        out.ascii(",\"cat\":{")
        if let t = cat.berTag {
            codeMember("\"ber_tag\":\"", t, out)
            out.ascii(",\"ber_name\":")
            quotedString(registry.code("cat-ber", Int(t)), out)
            out.byte(0x2C)
        }
        if let d = cat.first(0x01), let number = d.value.byte(0), let type = d.value.byte(1), let q = d.value.byte(2) {
            out.ascii("\"command_number\":"); out.int(Int(number))
            codeMember(",\"command_type\":\"", type, out)
            out.ascii(",\"command_name\":"); quotedString(registry.code("cat-command", Int(type)), out)
            codeMember(",\"command_qualifier\":\"", q, out)
            out.byte(0x2C)
        }
        if let d = cat.first(0x02), let src = d.value.byte(0), let dst = d.value.byte(1) {
            codeMember("\"source_device\":\"", src, out)
            out.ascii(",\"source_device_name\":"); quotedString(registry.code("cat-device", Int(src)), out)
            codeMember(",\"destination_device\":\"", dst, out)
            out.ascii(",\"destination_device_name\":"); quotedString(registry.code("cat-device", Int(dst)), out)
            out.byte(0x2C)
        }
        if let d = cat.first(0x03), let general = d.value.byte(0) {
            codeMember("\"result\":\"", general, out)
            out.ascii(",\"result_text\":"); quotedString(registry.code("cat-result", Int(general)), out)
            out.ascii(",\"result_additional\":\""); out.hex(d.value.suffix(from: 1)); out.ascii("\",")
        }
        out.ascii("\"objects\":[")
        for (i, o) in cat.objects.enumerated() {
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"tag\":"); out.int(o.tag)
            out.ascii(",\"name\":"); quotedString(o.tag < 0x80 ? registry.code("cat-tlv", o.tag) : nil, out)
            out.ascii(o.comprehensionRequired ? ",\"cr\":true" : ",\"cr\":false")
            out.ascii(",\"value\":\""); out.hex(o.value); out.ascii("\"}")
        }
        out.byte(0x5D)
        if let b = cat.brokenAt { out.ascii(",\"broken_at\":"); out.int(b) }
        out.byte(0x7D)
    }

    public func writeText(_ out: OutputBuffer, _ context: RenderContext) {
        for _ in 0..<context.indent { out.byte(0x20) }
        out.ascii("SIM ch")
        out.int(channel)
        out.byte(0x20)
        if let name { out.ascii(name) } else { out.ascii("UNKNOWN "); out.hexByte(cla, uppercase: true); out.byte(0x20); out.hexByte(ins, uppercase: true) }
        if let file { out.byte(0x20); out.string(file) }
        if let selectMode { out.ascii(" by "); out.ascii(selectMode); out.byte(0x20); out.hex(commandData, uppercase: true) }
        if let offset { out.ascii(" offset "); out.int(offset) }
        if let sfi { out.ascii(" SFI "); out.int(sfi) }
        if let record { out.ascii(" record "); out.int(record) }
        if let recordMode { out.ascii(" ("); out.ascii(recordMode); out.byte(0x29) }
        if let keyReference { out.byte(0x20); out.string(keyReference) }
        if let retries { out.ascii(", "); out.int(retries); out.ascii(" retries left") }
        if let channelAction {
            out.byte(0x20); out.ascii(channelAction); out.ascii(" channel ")
            if let targetChannel { out.int(targetChannel) } else { out.byte(0x3F) }
        }
        if let authContext { out.byte(0x20); out.ascii(authContext); out.ascii(" context") }
        if let rand { out.ascii(" RAND "); out.hex(rand) }
        if let autn { out.ascii(" AUTN "); out.hex(autn) }
        if let authResult { out.ascii(", "); out.ascii(authResult) }
        if let cat {
            if let d = cat.first(0x01), let type = d.value.byte(1) {
                out.ascii(" [")
                if let n = context.registry.code("cat-command", Int(type)) { out.string(n) } else { out.ascii("command "); out.hexByte(type, uppercase: true) }
                out.byte(0x5D)
            } else if let t = cat.berTag, let n = context.registry.code("cat-ber", Int(t)) {
                out.ascii(" ["); out.string(n); out.byte(0x5D)
            }
            if let d = cat.first(0x03), let general = d.value.byte(0) {
                out.ascii(" result ")
                if let n = context.registry.code("cat-result", Int(general)) { out.string(n) } else { out.hexByte(general, uppercase: true) }
            }
        }
        if let proactivePending { out.ascii(", proactive command pending ("); out.int(proactivePending); out.ascii(" bytes)") }
        out.byte(0x0A)
    }
}

private func quoted(_ s: StaticString?, _ out: OutputBuffer) {
    if let s { out.byte(0x22); out.ascii(s); out.byte(0x22) } else { out.ascii("null") }
}

private func quotedString(_ s: String?, _ out: OutputBuffer) {
    if let s { out.byte(0x22); out.jsonEscaped(s); out.byte(0x22) } else { out.ascii("null") }
}

private func hexOrNull(_ key: StaticString, _ v: ByteView?, _ out: OutputBuffer) {
    out.ascii(key)
    if let v { out.byte(0x22); out.hex(v); out.byte(0x22) } else { out.ascii("null") }
}
