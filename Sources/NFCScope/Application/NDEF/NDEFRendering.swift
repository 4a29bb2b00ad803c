// Writes parsed NDEF messages, capability containers and TLV areas as JSON members
// and as indented text, by hand into an `OutputBuffer`.
//
// JSON record fields and Core NFC: a record object's `tnf` is `NFCNDEFPayload
// .typeNameFormat` (`tnf_code` its raw value), `type` is `.type`, `id` is
// `.identifier` (absent when the IL flag is clear, which Core NFC shows as empty
// data), `payload` is `.payload` as lowercase hex. Chunked records are joined as Core
// NFC joins them (`payload` is the whole payload; `chunks` says how many there were).
//
// Every string that comes from the input is escaped: decoded strings are valid
// Unicode and go through `jsonEscaped`; TYPE and ID bytes are shown with non-printable
// bytes as `\xNN`, so invalid UTF-8 never makes invalid JSON.
//
// `mask` (for `--redact`): Wi-Fi network keys, Wi-Fi OOB device passwords and
// Bluetooth OOB pairing secrets (TK, randomizers) are written as `*` in decoded fields
// and in every hex field that contains them. Nothing else of NDEF is masked.

public enum NDEFRendering {
    // MARK: JSON

    /// Writes `,"records":[...],"errors":[...]`: the members of an `ndef` record after
    /// the ones the caller writes (`type`, `source`, `frames`, `uid`/`idm`).
    public static func writeJSONMembers(_ message: NDEFMessage, to out: OutputBuffer, mask: Bool) {
        let masker = NDEFMasker(message: message, enabled: mask)
        out.ascii(",\"records\":")
        writeRecordsJSON(message.records, out, masker)
        out.ascii(",\"errors\":[")
        for (i, e) in message.errors.enumerated() {
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"offset\":"); out.int(e.offset)
            out.ascii(",\"message\":"); quoted(e.message, out)
            out.byte(0x7D)
        }
        out.byte(0x5D)
    }

    static func writeRecordsJSON(_ records: [NDEFRecord], _ out: OutputBuffer, _ masker: NDEFMasker) {
        out.byte(0x5B)
        for (i, r) in records.enumerated() {
            if i > 0 { out.byte(0x2C) }
            writeRecordJSON(r, out, masker)
        }
        out.byte(0x5D)
    }

    static func writeRecordJSON(_ r: NDEFRecord, _ out: OutputBuffer, _ masker: NDEFMasker) {
        out.ascii("{\"tnf\":\""); out.ascii(r.tnf.jsonName)
        out.ascii("\",\"tnf_code\":"); out.int(Int(r.header.tnfCode))
        out.ascii(",\"type\":\""); out.printableOrEscaped(r.type, json: true); out.byte(0x22)
        if let id = r.id { out.ascii(",\"id\":\""); out.printableOrEscaped(id, json: true); out.byte(0x22) }
        out.ascii(",\"payload\":\""); masker.hex(r.payload, out); out.byte(0x22)
        out.ascii(",\"payload_length\":"); out.int(r.payload.count)
        out.ascii(",\"mb\":"); bool(r.mb, out)
        out.ascii(",\"me\":"); bool(r.me, out)
        out.ascii(",\"cf\":"); bool(r.header.cf, out)
        out.ascii(",\"sr\":"); bool(r.header.sr, out)
        out.ascii(",\"il\":"); bool(r.header.il, out)
        if r.chunks.count > 1 { out.ascii(",\"chunks\":"); out.int(r.chunks.count) }
        if r.tnf == .media { out.ascii(",\"mime\":\""); out.printableOrEscaped(r.type, json: true); out.byte(0x22) }
        if let name = r.decoded.name { out.ascii(",\"name\":\""); out.ascii(name); out.byte(0x22) }
        writeDecodedJSON(r, out, masker)
        out.byte(0x7D)
    }

    static func writeDecodedJSON(_ r: NDEFRecord, _ out: OutputBuffer, _ masker: NDEFMasker) {
        switch r.decoded {
        case .none, .undecoded:
            break
        case .uri(let u):
            if let uri = u.uri { out.ascii(",\"uri\":"); quoted(uri, out) }
            out.ascii(",\"uri_code\":"); out.int(Int(u.code))
            if let p = u.prefix { out.ascii(",\"uri_prefix\":"); quoted(p, out) }
        case .text(let t):
            if let text = t.text { out.ascii(",\"text\":"); quoted(text, out) }
            if let lang = t.language { out.ascii(",\"lang\":"); quoted(lang, out) }
            out.ascii(",\"encoding\":\""); out.string(t.encoding.rawValue); out.byte(0x22)
            if t.encoding == .utf16 { out.ascii(t.littleEndian ? ",\"byte_order\":\"little\"" : ",\"byte_order\":\"big\"") }
        case .smartPoster(let sp):
            if let uri = sp.uri { out.ascii(",\"uri\":"); quoted(uri, out) }
            out.ascii(",\"titles\":[")
            for (i, t) in sp.titles.enumerated() {
                if i > 0 { out.byte(0x2C) }
                out.ascii("{\"lang\":"); optionalQuoted(t.language, out)
                out.ascii(",\"text\":"); optionalQuoted(t.text, out)
                out.byte(0x7D)
            }
            out.byte(0x5D)
            if let a = sp.action { writeActionJSON(a, out) }
            if let s = sp.size { out.ascii(",\"size\":"); out.int(Int(s)) }
            if let t = sp.targetType { out.ascii(",\"target_type\":"); quoted(t, out) }
            if !sp.icons.isEmpty {
                out.ascii(",\"icons\":[")
                for (i, icon) in sp.icons.enumerated() {
                    if i > 0 { out.byte(0x2C) }
                    out.ascii("{\"mime\":"); quoted(icon.mime, out)
                    out.ascii(",\"length\":"); out.int(icon.data.count); out.byte(0x7D)
                }
                out.byte(0x5D)
            }
            if let m = sp.message { out.ascii(",\"records\":"); writeRecordsJSON(m.records, out, masker) }
        case .action(let a):
            writeActionJSON(a, out)
        case .size(let s):
            out.ascii(",\"size\":"); out.int(Int(s))
        case .targetType(let t):
            out.ascii(",\"target_type\":"); quoted(t, out)
        case .handover(let h):
            out.ascii(",\"handover\":\""); out.string(h.kind.name)
            out.ascii("\",\"version\":\""); out.int(Int(h.major)); out.byte(0x2E); out.int(Int(h.minor)); out.byte(0x22)
            if let m = h.message { out.ascii(",\"records\":"); writeRecordsJSON(m.records, out, masker) }
        case .handoverCarrier(let c):
            out.ascii(",\"carrier_type_format\":\"")
            out.ascii((NDEFTypeNameFormat(rawValue: c.typeFormat) ?? .reserved).jsonName)
            out.ascii("\",\"carrier_type_format_code\":"); out.int(Int(c.typeFormat))
            out.ascii(",\"carrier_type\":\""); bytesText(c.carrierType, out); out.byte(0x22)
            out.ascii(",\"carrier_data\":\""); hexBytes(c.carrierData, out); out.byte(0x22)
        case .alternativeCarrier(let ac):
            out.ascii(",\"power_state\":\""); out.string(ac.powerStateName)
            out.ascii("\",\"power_state_code\":"); out.int(Int(ac.powerState))
            out.ascii(",\"data_reference\":\""); bytesText(ac.dataReference, out)
            out.ascii("\",\"auxiliary_references\":[")
            for (i, a) in ac.auxiliaryReferences.enumerated() {
                if i > 0 { out.byte(0x2C) }
                out.byte(0x22); bytesText(a, out); out.byte(0x22)
            }
            out.byte(0x5D)
        case .collisionResolution(let v):
            out.ascii(",\"random_number\":"); out.int(Int(v))
        case .handoverError(let e):
            out.ascii(",\"reason\":"); out.int(Int(e.reason))
            out.ascii(",\"reason_name\":"); optionalQuoted(e.reasonName, out)
            if let v = e.value { out.ascii(",\"data\":"); out.int(Int(v)) } else {
                out.ascii(",\"data_hex\":\""); hexBytes(e.data, out); out.byte(0x22)
            }
        case .deviceInformation(let di):
            if let s = di.manufacturer { out.ascii(",\"manufacturer\":"); quoted(s, out) }
            if let s = di.model { out.ascii(",\"model\":"); quoted(s, out) }
            if let s = di.deviceName { out.ascii(",\"device_name\":"); quoted(s, out) }
            if let s = di.uuid { out.ascii(",\"uuid\":"); quoted(s, out) }
            if let s = di.firmwareVersion { out.ascii(",\"firmware_version\":"); quoted(s, out) }
            if !di.unknown.isEmpty {
                out.ascii(",\"unknown_fields\":[")
                for (i, f) in di.unknown.enumerated() {
                    if i > 0 { out.byte(0x2C) }
                    out.ascii("{\"type\":"); out.int(Int(f.type))
                    out.ascii(",\"hex\":\""); hexBytes(f.value, out); out.ascii("\"}")
                }
                out.byte(0x5D)
            }
        case .signature(let s):
            out.ascii(",\"version\":\""); out.int(Int(s.versionMajor)); out.byte(0x2E); out.int(Int(s.versionMinor))
            out.ascii("\",\"signature_type\":"); optionalQuoted(s.signatureTypeName, out)
            out.ascii(",\"signature_type_code\":"); out.int(Int(s.signatureType))
            out.ascii(",\"hash_type\":"); optionalQuoted(s.hashTypeName, out)
            out.ascii(",\"hash_type_code\":"); out.int(Int(s.hashType))
            if let sig = s.signature { out.ascii(",\"signature\":\""); hexBytes(sig, out); out.byte(0x22) }
            if let uri = s.signatureURI { out.ascii(",\"signature_uri\":"); quoted(uri, out) }
            out.ascii(",\"certificate_format\":"); optionalQuoted(s.certificateFormatName, out)
            out.ascii(",\"certificate_format_code\":"); out.int(Int(s.certificateFormat))
            out.ascii(",\"certificates\":[")
            for (i, c) in s.certificates.enumerated() {
                if i > 0 { out.byte(0x2C) }
                out.ascii("{\"length\":"); out.int(c.count)
                out.ascii(",\"hex\":\""); hexBytes(c, out); out.ascii("\"}")
            }
            out.byte(0x5D)
            if let uri = s.certificateURI { out.ascii(",\"certificate_uri\":"); quoted(uri, out) }
        case .mediaText(let text):
            out.ascii(",\"text\":"); quoted(text, out)
        case .bluetooth(let b):
            writeBluetoothJSON(b, r.payload, out, masker)
        case .wifi(let w):
            writeWiFiJSON(w, r.payload, out, masker)
        case .androidApplication(let name):
            out.ascii(",\"package\":"); quoted(name, out)
        case .absoluteURI(let uri):
            out.ascii(",\"uri\":"); quoted(uri, out)
        }
    }

    static func writeActionJSON(_ a: NDEFAction, _ out: OutputBuffer) {
        out.ascii(",\"action\":"); optionalQuoted(a.name, out)
        out.ascii(",\"action_code\":"); out.int(Int(a.code))
    }

    static func writeBluetoothJSON(_ b: NDEFBluetoothOOB, _ payload: ByteView, _ out: OutputBuffer, _ masker: NDEFMasker) {
        out.ascii(b.lowEnergy ? ",\"carrier\":\"bluetooth_le\"" : ",\"carrier\":\"bluetooth_ep\"")
        if let l = b.oobLength { out.ascii(",\"oob_length\":"); out.int(l) }
        if let a = b.address { out.ascii(",\"address\":"); quoted(a, out) }
        if let t = b.addressType { out.ascii(",\"address_type\":"); quoted(t, out) }
        if let r = b.role {
            out.ascii(",\"role\":"); out.int(Int(r))
            out.ascii(",\"role_name\":"); optionalQuoted(b.roleName, out)
        }
        if let n = b.localName {
            out.ascii(",\"local_name\":"); quoted(n, out)
            out.ascii(",\"local_name_complete\":"); bool(b.localNameComplete, out)
        }
        if let c = b.classOfDevice {
            out.ascii(",\"class_of_device\":\""); out.hexByte(UInt8(c >> 16), uppercase: true)
            out.hex16(UInt16(c & 0xFFFF), uppercase: true)
            out.ascii("\",\"major_device_class\":"); optionalQuoted(NDEFBluetoothOOB.majorDeviceClassName(c), out)
            out.ascii(",\"minor_device_class\":"); out.int(Int((c >> 2) & 0x3F))
            out.ascii(",\"service_classes\":"); stringArray(NDEFBluetoothOOB.serviceClassNames(c), out)
        }
        if !b.uuids.isEmpty { out.ascii(",\"uuids\":"); stringArray(b.uuids, out) }
        if let f = b.flags {
            out.ascii(",\"flags\":"); out.int(Int(f))
            out.ascii(",\"flag_names\":"); stringArray(NDEFBluetoothOOB.flagNames(f), out)
        }
        if let a = b.appearance { out.ascii(",\"appearance\":"); out.int(Int(a)) }
        if let t = b.txPower { out.ascii(",\"tx_power_dbm\":"); out.int(Int(t)) }
        out.ascii(",\"fields\":[")
        for (i, f) in b.fields.enumerated() {
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"type\":"); out.int(Int(f.type))
            out.ascii(",\"name\":"); optionalQuoted(f.name, out)
            out.ascii(",\"hex\":\"")
            if let v = payload.slice(f.offset, f.length) { masker.hex(v, out) }
            out.ascii("\"}")
        }
        out.byte(0x5D)
    }

    static func writeWiFiJSON(_ w: NDEFWiFiSimpleConfig, _ payload: ByteView, _ out: OutputBuffer, _ masker: NDEFMasker) {
        out.ascii(",\"carrier\":\"wifi_wsc\"")
        if let v = w.version { out.ascii(",\"wsc_version\":\""); versionNibbles(v, out); out.byte(0x22) }
        if let v = w.version2 { out.ascii(",\"wsc_version2\":\""); versionNibbles(v, out); out.byte(0x22) }
        out.ascii(",\"credentials\":[")
        for (i, c) in w.credentials.enumerated() {
            if i > 0 { out.byte(0x2C) }
            out.byte(0x7B)
            var first = true
            func key(_ k: StaticString) {
                if !first { out.byte(0x2C) }
                first = false
                out.byte(0x22); out.ascii(k); out.ascii("\":")
            }
            if let n = c.networkIndex { key("network_index"); out.int(Int(n)) }
            if let ssid = c.ssid {
                key("ssid")
                ByteView.with(ssid) { v in
                    if let s = utf8String(v) { quoted(s, out) } else { out.ascii("null") }
                }
                key("ssid_hex"); out.byte(0x22); hexBytes(ssid, out); out.byte(0x22)
            }
            if let a = c.authenticationType {
                key("authentication"); stringArray(NDEFWiFiSimpleConfig.authenticationNames(a), out)
                key("authentication_code"); out.int(Int(a))
            }
            if let e = c.encryptionType {
                key("encryption"); stringArray(NDEFWiFiSimpleConfig.encryptionNames(e), out)
                key("encryption_code"); out.int(Int(e))
            }
            if let range = c.networkKey, let v = payload.slice(range.lowerBound, range.count) {
                key("network_key")
                out.byte(0x22)
                if masker.enabled { stars(v.count, out) } else { out.printableOrEscaped(v, json: true) }
                out.byte(0x22)
                key("network_key_length"); out.int(v.count)
            }
            if let m = c.macAddress { key("mac_address"); quoted(m, out) }
            out.byte(0x7D)
        }
        out.byte(0x5D)
        if let id = w.passwordID {
            out.ascii(",\"password_id\":"); out.int(Int(id))
            if let h = w.publicKeyHash { out.ascii(",\"public_key_hash\":\""); hexBytes(h, out); out.byte(0x22) }
            if let range = w.devicePassword, let v = payload.slice(range.lowerBound, range.count) {
                out.ascii(",\"device_password\":\"")
                if masker.enabled { stars(v.count * 2, out) } else { out.hex(v) }
                out.byte(0x22)
            }
        }
        out.ascii(",\"attributes\":[")
        for (i, a) in w.attributes.enumerated() {
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"id\":\""); out.hex16(a.id, uppercase: true)
            out.ascii("\",\"name\":"); optionalQuoted(a.name, out)
            out.ascii(",\"length\":"); out.int(a.length); out.byte(0x7D)
        }
        out.byte(0x5D)
    }

    // MARK: Text

    /// The message as indented lines: a summary line, one block per record (nested
    /// records indented further), then the errors. Each line starts with `indent` spaces.
    public static func writeText(_ message: NDEFMessage, to out: OutputBuffer, indent: Int, mask: Bool) {
        let masker = NDEFMasker(message: message, enabled: mask)
        line(indent, out)
        out.ascii("NDEF message: "); out.int(message.records.count)
        out.ascii(message.records.count == 1 ? " record" : " records")
        if !message.errors.isEmpty {
            out.ascii(", "); out.int(message.errors.count); out.ascii(message.errors.count == 1 ? " error" : " errors")
        }
        out.byte(0x0A)
        writeRecordsText(message.records, out, indent + 2, masker)
        for e in message.errors {
            line(indent + 2, out)
            out.ascii("error at "); out.int(e.offset); out.ascii(": "); textSafe(e.message, out); out.byte(0x0A)
        }
    }

    static func writeRecordsText(_ records: [NDEFRecord], _ out: OutputBuffer, _ indent: Int, _ masker: NDEFMasker) {
        for (i, r) in records.enumerated() {
            line(indent, out)
            out.ascii("["); out.int(i); out.ascii("] "); out.ascii(r.tnf.jsonName)
            out.ascii(" \""); out.printableOrEscaped(r.type, json: false); out.byte(0x22)
            if let id = r.id { out.ascii(" id \""); out.printableOrEscaped(id, json: false); out.byte(0x22) }
            if let name = r.decoded.name { out.ascii(" ("); out.ascii(name); out.byte(0x29) }
            out.ascii(" flags")
            if r.mb { out.ascii(" MB") }
            if r.me { out.ascii(" ME") }
            if r.header.cf { out.ascii(" CF") }
            if r.header.sr { out.ascii(" SR") }
            if r.header.il { out.ascii(" IL") }
            if r.chunks.count > 1 { out.ascii(", "); out.int(r.chunks.count); out.ascii(" chunks") }
            out.ascii(", payload "); out.int(r.payload.count); out.ascii(" bytes\n")
            writeDecodedText(r, out, indent + 4, masker)
            if !r.payload.isEmpty {
                line(indent + 4, out)
                out.ascii("payload: "); masker.hex(r.payload, out); out.byte(0x0A)
            }
        }
    }

    static func writeDecodedText(_ r: NDEFRecord, _ out: OutputBuffer, _ indent: Int, _ masker: NDEFMasker) {
        func field(_ name: StaticString, _ value: String) {
            line(indent, out); out.ascii(name); out.ascii(": "); textSafe(value, out); out.byte(0x0A)
        }
        switch r.decoded {
        case .none, .undecoded:
            break
        case .uri(let u):
            if let uri = u.uri { field("uri", uri) } else { field("uri", "(not decoded: identifier code \(u.code))") }
        case .text(let t):
            field("text", t.text ?? "(not decoded)")
            field("lang", (t.language ?? "?") + ", " + t.encoding.rawValue
                  + (t.encoding == .utf16 ? (t.littleEndian ? " little-endian" : " big-endian") : ""))
        case .smartPoster(let sp):
            if let uri = sp.uri { field("uri", uri) }
            for t in sp.titles { field("title", "[\(t.language ?? "?")] \(t.text ?? "(not decoded)")") }
            if let a = sp.action { field("action", a.name ?? "RFU \(a.code)") }
            if let s = sp.size { field("size", "\(s)") }
            if let t = sp.targetType { field("target type", t) }
            for icon in sp.icons { field("icon", "\(icon.mime), \(icon.data.count) bytes") }
            if let m = sp.message { writeRecordsText(m.records, out, indent, masker) }
        case .action(let a):
            field("action", a.name ?? "RFU \(a.code)")
        case .size(let s):
            field("size", "\(s)")
        case .targetType(let t):
            field("target type", t)
        case .handover(let h):
            field("handover", "\(h.kind.name), version \(h.major).\(h.minor)")
            if let m = h.message { writeRecordsText(m.records, out, indent, masker) }
        case .handoverCarrier(let c):
            field("carrier type", "\((NDEFTypeNameFormat(rawValue: c.typeFormat) ?? .reserved).jsonName) \(escapedText(c.carrierType))")
            if !c.carrierData.isEmpty { field("carrier data", hexString(c.carrierData)) }
        case .alternativeCarrier(let ac):
            var s = "\(ac.powerStateName), data reference \"\(escapedText(ac.dataReference))\""
            for a in ac.auxiliaryReferences { s += ", auxiliary \"\(escapedText(a))\"" }
            field("carrier", s)
        case .collisionResolution(let v):
            field("random number", "\(v)")
        case .handoverError(let e):
            field("reason", "\(e.reason) \(e.reasonName ?? "RFU")" + (e.value.map { ", data \($0)" } ?? ", data \(hexString(e.data))"))
        case .deviceInformation(let di):
            if let s = di.manufacturer { field("manufacturer", s) }
            if let s = di.model { field("model", s) }
            if let s = di.deviceName { field("device name", s) }
            if let s = di.uuid { field("uuid", s) }
            if let s = di.firmwareVersion { field("firmware version", s) }
            for f in di.unknown { field("unknown field", "type \(f.type): \(hexString(f.value))") }
        case .signature(let s):
            field("signature", "\(s.signatureTypeName ?? "RFU \(s.signatureType)"), hash \(s.hashTypeName ?? "RFU \(s.hashType)")")
            if let sig = s.signature, !sig.isEmpty { field("signature value", hexString(sig)) }
            if let uri = s.signatureURI { field("signature uri", uri) }
            field("certificates", "\(s.certificates.count), format \(s.certificateFormatName ?? "RFU \(s.certificateFormat)")")
            for c in s.certificates { field("certificate", "\(c.count) bytes: \(hexString(c))") }
            if let uri = s.certificateURI { field("certificate uri", uri) }
        case .mediaText(let text):
            field("text", text)
        case .bluetooth(let b):
            if let a = b.address { field("address", a + (b.addressType.map { " (\($0))" } ?? "")) }
            if let n = b.localName { field("name", n) }
            if let r = b.role { field("role", b.roleName ?? "RFU \(r)") }
            if let c = b.classOfDevice {
                field("class of device", String(c, radix: 16, uppercase: true) + " " + (NDEFBluetoothOOB.majorDeviceClassName(c) ?? "reserved major class"))
            }
            if !b.uuids.isEmpty { field("uuids", b.uuids.joined(separator: " ")) }
            for f in b.fields {
                line(indent, out)
                out.ascii("data type "); out.hexByte(f.type, uppercase: true)
                if let name = f.name { out.byte(0x20); out.string(name) }
                out.ascii(": ")
                if let v = r.payload.slice(f.offset, f.length) { masker.hex(v, out) }
                out.byte(0x0A)
            }
        case .wifi(let w):
            for c in w.credentials {
                if let ssid = c.ssid {
                    line(indent, out); out.ascii("ssid: ")
                    ByteView.with(ssid) { out.printableOrEscaped($0, json: false) }
                    out.byte(0x0A)
                }
                if let a = c.authenticationType { field("authentication", NDEFWiFiSimpleConfig.authenticationNames(a).joined(separator: ", ")) }
                if let e = c.encryptionType { field("encryption", NDEFWiFiSimpleConfig.encryptionNames(e).joined(separator: ", ")) }
                if let range = c.networkKey, let v = r.payload.slice(range.lowerBound, range.count) {
                    line(indent, out); out.ascii("network key: ")
                    if masker.enabled { stars(v.count, out) } else { out.printableOrEscaped(v, json: false) }
                    out.byte(0x0A)
                }
                if let m = c.macAddress { field("mac address", m) }
            }
        case .androidApplication(let name):
            field("package", name)
        case .absoluteURI(let uri):
            field("uri", uri)
        }
    }

    // MARK: Capability containers and TLV areas

    /// A Type 2 Tag CC as a JSON object.
    public static func writeJSON(_ cc: T2TCapabilityContainer, to out: OutputBuffer) {
        out.ascii("{\"magic\":\""); out.hexByte(cc.magic, uppercase: true)
        out.ascii("\",\"version\":\""); out.int(Int(cc.versionMajor)); out.byte(0x2E); out.int(Int(cc.versionMinor))
        out.ascii("\",\"data_area_size\":"); out.int(cc.dataAreaSize)
        out.ascii(",\"read_access\":"); quoted(cc.read.name, out)
        out.ascii(",\"write_access\":"); quoted(cc.write.name, out)
        problems(cc.problems, out)
        out.byte(0x7D)
    }

    /// A Type 5 Tag CC as a JSON object.
    public static func writeJSON(_ cc: T5TCapabilityContainer, to out: OutputBuffer) {
        out.ascii("{\"magic\":\""); out.hexByte(cc.magic, uppercase: true)
        out.ascii("\",\"length\":"); out.int(cc.length)
        out.ascii(",\"version\":\""); out.int(Int(cc.versionMajor)); out.byte(0x2E); out.int(Int(cc.versionMinor))
        out.ascii("\",\"mlen\":"); out.int(cc.mlen)
        out.ascii(",\"data_area_size\":"); out.int(cc.dataAreaSize)
        out.ascii(",\"read_access\":"); quoted(cc.read.name, out)
        out.ascii(",\"write_access\":"); quoted(cc.write.name, out)
        out.ascii(",\"multiple_block_read\":"); bool(cc.multipleBlockRead, out)
        out.ascii(",\"lock_block\":"); bool(cc.lockBlock, out)
        out.ascii(",\"special_frame\":"); bool(cc.specialFrame, out)
        problems(cc.problems, out)
        out.byte(0x7D)
    }

    /// A Type 4 Tag CC file as a JSON object.
    public static func writeJSON(_ cc: T4TCapabilityContainer, to out: OutputBuffer) {
        out.ascii("{\"cc_length\":"); out.int(cc.ccLength)
        out.ascii(",\"version\":\""); out.int(Int(cc.versionMajor)); out.byte(0x2E); out.int(Int(cc.versionMinor))
        out.ascii("\",\"mle\":"); out.int(cc.mle)
        out.ascii(",\"mlc\":"); out.int(cc.mlc)
        out.ascii(",\"files\":[")
        for (i, f) in cc.files.enumerated() {
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"tlv\":\""); out.hexByte(f.tag, uppercase: true)
            out.ascii("\",\"ndef\":"); bool(f.isNDEF, out)
            out.ascii(",\"file_id\":\""); out.hex16(f.fileID, uppercase: true)
            out.ascii("\",\"max_size\":"); out.int(f.maxSize)
            out.ascii(",\"read_access\":\""); out.hexByte(f.readAccess, uppercase: true)
            out.ascii("\",\"read_access_name\":\""); out.string(T4TCapabilityContainer.FileControl.accessName(f.readAccess, write: false))
            out.ascii("\",\"write_access\":\""); out.hexByte(f.writeAccess, uppercase: true)
            out.ascii("\",\"write_access_name\":\""); out.string(T4TCapabilityContainer.FileControl.accessName(f.writeAccess, write: true))
            out.ascii("\"}")
        }
        out.byte(0x5D)
        problems(cc.problems, out)
        out.byte(0x7D)
    }

    /// A Type 3 Tag attribute information block as a JSON object.
    public static func writeJSON(_ a: T3TAttributeInformation, to out: OutputBuffer) {
        out.ascii("{\"version\":\""); out.int(Int(a.versionMajor)); out.byte(0x2E); out.int(Int(a.versionMinor))
        out.ascii("\",\"nbr\":"); out.int(a.nbr)
        out.ascii(",\"nbw\":"); out.int(a.nbw)
        out.ascii(",\"nmaxb\":"); out.int(a.nmaxb)
        out.ascii(",\"write_flag\":\""); out.hexByte(a.writeFlag, uppercase: true)
        out.ascii("\",\"write_flag_name\":\""); out.string(a.writeFlagName)
        out.ascii("\",\"rw_flag\":\""); out.hexByte(a.rwFlag, uppercase: true)
        out.ascii("\",\"rw_flag_name\":\""); out.string(a.rwFlagName)
        out.ascii("\",\"ln\":"); out.int(a.ln)
        out.ascii(",\"checksum\":\""); out.hex16(a.checksum, uppercase: true)
        out.ascii(a.checksumValid ? "\",\"checksum_ok\":true" : "\",\"checksum_ok\":false")
        problems(a.problems, out)
        out.byte(0x7D)
    }

    /// One text line per capability container: `CC E1 version 1.0, data area 48 bytes, read granted, write granted`.
    public static func writeText(_ cc: T2TCapabilityContainer, to out: OutputBuffer, indent: Int) {
        line(indent, out)
        out.ascii("T2T CC "); out.hexByte(cc.magic, uppercase: true)
        out.ascii(" version "); out.int(Int(cc.versionMajor)); out.byte(0x2E); out.int(Int(cc.versionMinor))
        out.ascii(", data area "); out.int(cc.dataAreaSize)
        out.ascii(" bytes, read "); out.string(cc.read.name); out.ascii(", write "); out.string(cc.write.name)
        problemsText(cc.problems, out)
    }

    public static func writeText(_ cc: T5TCapabilityContainer, to out: OutputBuffer, indent: Int) {
        line(indent, out)
        out.ascii("T5T CC "); out.hexByte(cc.magic, uppercase: true)
        out.ascii(" ("); out.int(cc.length); out.ascii(" bytes) version ")
        out.int(Int(cc.versionMajor)); out.byte(0x2E); out.int(Int(cc.versionMinor))
        out.ascii(", data area "); out.int(cc.dataAreaSize)
        out.ascii(" bytes, read "); out.string(cc.read.name); out.ascii(", write "); out.string(cc.write.name)
        if cc.multipleBlockRead { out.ascii(", MBREAD") }
        if cc.lockBlock { out.ascii(", lock block") }
        if cc.specialFrame { out.ascii(", special frame") }
        problemsText(cc.problems, out)
    }

    public static func writeText(_ cc: T4TCapabilityContainer, to out: OutputBuffer, indent: Int) {
        line(indent, out)
        out.ascii("T4T CC version "); out.int(Int(cc.versionMajor)); out.byte(0x2E); out.int(Int(cc.versionMinor))
        out.ascii(", MLe "); out.int(cc.mle); out.ascii(", MLc "); out.int(cc.mlc)
        for f in cc.files {
            out.ascii(f.isNDEF ? ", NDEF file " : ", file "); out.hex16(f.fileID, uppercase: true)
            out.ascii(" max "); out.int(f.maxSize)
            out.ascii(" read "); out.string(T4TCapabilityContainer.FileControl.accessName(f.readAccess, write: false))
            out.ascii(" write "); out.string(T4TCapabilityContainer.FileControl.accessName(f.writeAccess, write: true))
        }
        problemsText(cc.problems, out)
    }

    public static func writeText(_ a: T3TAttributeInformation, to out: OutputBuffer, indent: Int) {
        line(indent, out)
        out.ascii("T3T attribute block version "); out.int(Int(a.versionMajor)); out.byte(0x2E); out.int(Int(a.versionMinor))
        out.ascii(", Nbr "); out.int(a.nbr); out.ascii(", Nbw "); out.int(a.nbw)
        out.ascii(", Nmaxb "); out.int(a.nmaxb); out.ascii(", write "); out.string(a.writeFlagName)
        out.ascii(", "); out.string(a.rwFlagName); out.ascii(", Ln "); out.int(a.ln)
        out.ascii(a.checksumValid ? ", checksum ok" : ", checksum BAD")
        problemsText(a.problems, out)
    }

    /// The TLVs of a tag memory as a JSON array: `{"tag":"03","name":"NDEF Message",
    /// "address":16,"length":17}`, with `area` for control TLVs.
    public static func writeTLVsJSON(_ memory: NDEFTagMemory, to out: OutputBuffer) {
        out.byte(0x5B)
        for (i, t) in memory.tlvs.enumerated() {
            if i > 0 { out.byte(0x2C) }
            out.ascii("{\"tag\":\""); out.hexByte(t.tag, uppercase: true)
            out.ascii("\",\"name\":\""); out.string(t.name)
            out.ascii("\",\"address\":"); out.int(t.address)
            if let l = t.length { out.ascii(",\"length\":"); out.int(l) }
            if let c = t.control {
                out.ascii(",\"area\":{\"address\":"); out.int(c.address)
                out.ascii(",\"length\":"); out.int(c.byteCount)
                out.ascii(",\"page_address\":"); out.int(c.pageAddress)
                out.ascii(",\"byte_offset\":"); out.int(c.byteOffset)
                out.ascii(",\"bytes_per_page\":"); out.int(c.bytesPerPage)
                if let b = c.bytesLockedPerLockBit {
                    out.ascii(",\"lock_bits\":"); out.int(c.sizeField == 0 ? 256 : Int(c.sizeField))
                    out.ascii(",\"bytes_locked_per_lock_bit\":"); out.int(b)
                }
                out.byte(0x7D)
            }
            out.byte(0x7D)
        }
        out.byte(0x5D)
    }

    /// One text line per TLV, each starting with `indent` spaces.
    public static func writeTLVsText(_ memory: NDEFTagMemory, to out: OutputBuffer, indent: Int) {
        for t in memory.tlvs {
            line(indent, out)
            out.ascii("TLV "); out.hexByte(t.tag, uppercase: true); out.byte(0x20); out.string(t.name)
            out.ascii(" at "); out.int(t.address)
            if let l = t.length { out.ascii(", length "); out.int(l) }
            if let c = t.control {
                out.ascii(c.isLock ? ", lock bytes " : ", reserved bytes ")
                out.int(c.address); out.byte(0x2D); out.int(c.address + c.byteCount - 1)
            }
            out.byte(0x0A)
        }
        for e in memory.errors {
            line(indent, out)
            out.ascii("error at "); out.int(e.offset); out.ascii(": "); textSafe(e.message, out); out.byte(0x0A)
        }
    }
}

// MARK: Masking

/// Masks the secret bytes of a message wherever they appear in hex output.
struct NDEFMasker {
    let enabled: Bool
    let secrets: [[UInt8]]

    init(message: NDEFMessage, enabled: Bool) {
        self.enabled = enabled
        secrets = enabled ? message.secretValues.filter { !$0.isEmpty } : []
    }

    /// `v` as lowercase hex, secret bytes as `**`.
    func hex(_ v: ByteView, _ out: OutputBuffer) {
        guard enabled, !secrets.isEmpty, !v.isEmpty else { return out.hex(v) }
        var mask = [Bool](repeating: false, count: v.count * 2)
        var any = false
        for secret in secrets where secret.count <= v.count {
            var i = 0
            while i + secret.count <= v.count {
                var match = true
                for k in 0..<secret.count where v[i + k] != secret[k] {
                    match = false
                    break
                }
                if match {
                    for k in (2 * i)..<(2 * (i + secret.count)) { mask[k] = true }
                    any = true
                }
                i += 1
            }
        }
        if any { out.hex(v, mask: mask, maskOffset: 0) } else { out.hex(v) }
    }
}

extension NDEFPayload {
    /// What the record is, for people (JSON `name`); nil when nothing was decoded.
    var name: StaticString? {
        switch self {
        case .none, .undecoded: nil
        case .uri: "URI"
        case .text: "Text"
        case .smartPoster: "Smart Poster"
        case .action: "Smart Poster action"
        case .size: "Smart Poster size"
        case .targetType: "Smart Poster type"
        case .handover(let h):
            switch h.kind {
            case .request: "Handover Request"
            case .select: "Handover Select"
            case .mediation: "Handover Mediation"
            case .initiate: "Handover Initiate"
            }
        case .handoverCarrier: "Handover Carrier"
        case .alternativeCarrier: "Alternative Carrier"
        case .collisionResolution: "Collision Resolution"
        case .handoverError: "Handover Error"
        case .deviceInformation: "Device Information"
        case .signature: "Signature"
        case .mediaText: "Media (text)"
        case .bluetooth(let b): b.lowEnergy ? "Bluetooth LE OOB" : "Bluetooth BR/EDR OOB"
        case .wifi: "Wi-Fi Simple Configuration"
        case .androidApplication: "Android Application Record"
        case .absoluteURI: "Absolute URI"
        }
    }
}

// MARK: Helpers

@inline(__always)
private func quoted(_ s: String, _ out: OutputBuffer) {
    out.byte(0x22); out.jsonEscaped(s); out.byte(0x22)
}

private func optionalQuoted(_ s: String?, _ out: OutputBuffer) {
    if let s { quoted(s, out) } else { out.ascii("null") }
}

@inline(__always)
private func bool(_ v: Bool, _ out: OutputBuffer) {
    out.ascii(v ? "true" : "false")
}

private func line(_ indent: Int, _ out: OutputBuffer) {
    for _ in 0..<indent { out.byte(0x20) }
}

private func stars(_ n: Int, _ out: OutputBuffer) {
    for _ in 0..<n { out.byte(0x2A) }
}

private func stringArray(_ items: [String], _ out: OutputBuffer) {
    out.byte(0x5B)
    for (i, s) in items.enumerated() {
        if i > 0 { out.byte(0x2C) }
        quoted(s, out)
    }
    out.byte(0x5D)
}

private func hexBytes(_ b: [UInt8], _ out: OutputBuffer) {
    ByteView.with(b) { out.hex($0) }
}

/// Bytes in a JSON string: printable ASCII as is, others as `\xNN`.
private func bytesText(_ b: [UInt8], _ out: OutputBuffer) {
    ByteView.with(b) { out.printableOrEscaped($0, json: true) }
}

private func escapedText(_ b: [UInt8]) -> String {
    var s = ""
    for c in b {
        if c >= 0x20 && c <= 0x7E { s.unicodeScalars.append(Unicode.Scalar(c)) } else { s += "\\x" + hex2(c) }
    }
    return s
}

private func hexString(_ b: [UInt8]) -> String {
    b.map { hex2($0).lowercased() }.joined()
}

private func versionNibbles(_ v: UInt8, _ out: OutputBuffer) {
    out.int(Int(v >> 4)); out.byte(0x2E); out.int(Int(v & 0x0F))
}

/// Ends a text line, with the problems after it in brackets.
private func problemsText(_ list: [String], _ out: OutputBuffer) {
    if !list.isEmpty {
        out.ascii(" [")
        textSafe(list.joined(separator: "; "), out)
        out.byte(0x5D)
    }
    out.byte(0x0A)
}

private func problems(_ list: [String], _ out: OutputBuffer) {
    guard !list.isEmpty else { return }
    out.ascii(",\"problems\":")
    stringArray(list, out)
}

/// A decoded string on a text line: control characters (C0, DEL, C1) as `\xNN` or
/// `\u{N}`, so input cannot break the line structure. A string of printable ASCII
/// only (nearly every one) has nothing to replace and is written as it is; anything
/// else goes scalar by scalar (`textSafeByScalars`, Shapes15FastPathTests).
func textSafe(_ s: String, _ out: OutputBuffer) {
    var s = s
    let plain = s.withUTF8 { u -> Bool in
        for b in u where b < 0x20 || b >= 0x7F { return false }
        return true
    }
    if plain {
        out.string(s)
        return
    }
    textSafeByScalars(s, out)
}

func textSafeByScalars(_ s: String, _ out: OutputBuffer) {
    var clean = ""
    for scalar in s.unicodeScalars {
        let v = scalar.value
        if v < 0x20 || v == 0x7F {
            clean += "\\x" + hex2(UInt8(v))
        } else if (0x80...0x9F).contains(v) || v == 0x2028 || v == 0x2029 {
            clean += "\\u{" + String(v, radix: 16) + "}"
        } else {
            clean.unicodeScalars.append(scalar)
        }
    }
    out.string(clean)
}
