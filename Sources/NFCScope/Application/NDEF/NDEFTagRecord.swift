// One NDEF message found on a tag (or carried by SNEP), with where it came from:
// the platform, the frames that carried it, the tag's identifier, its capability
// container or attribute block, the TLVs around it, and what the capture did not
// show when the message could not be assembled whole.

/// Where an NDEF message was found.
public enum NDEFSource: Sendable {
    case t2t, t3t, t4t, t5t
    /// Carried by a SNEP message over LLCP (PUT, GET, SUCCESS).
    case snep
    /// Carried by an NPP message over LLCP (Android's NDEF Push Protocol).
    case npp

    public var jsonName: StaticString {
        switch self {
        case .t2t: "t2t"
        case .t3t: "t3t"
        case .t4t: "t4t"
        case .t5t: "t5t"
        case .snep: "snep"
        case .npp: "npp"
        }
    }
}

/// The platform's description of the NDEF area.
public enum NDEFContainer: Sendable {
    case t2t(T2TCapabilityContainer)
    case t3t(T3TAttributeInformation)
    case t4t(T4TCapabilityContainer)
    case t5t(T5TCapabilityContainer)
}

public struct NDEFTagRecord: DecodedRecord {
    public static var typeName: StaticString { "ndef" }

    public var source: NDEFSource
    var frames: FrameList
    /// The tag's UID (NFC-A, NFC-V) or IDm (FeliCa), when the capture shows it.
    public var tagID: [UInt8]?
    /// "uid" or "idm".
    public var tagIDName: StaticString
    public var container: NDEFContainer?
    /// The TLV area the message was found in (Type 2 and Type 5 tags).
    public var tlvs: NDEFTagMemory?
    /// The message's bytes (empty when it could not be assembled).
    public var message: ByteView
    /// Why the message is not complete, when it is not.
    public var assemblyProblem: String?

    init(source: NDEFSource, frames: FrameList, tagID: [UInt8]?, tagIDName: StaticString, container: NDEFContainer?,
         tlvs: NDEFTagMemory? = nil, message: ByteView, assemblyProblem: String?) {
        self.source = source
        self.frames = frames
        self.tagID = tagID
        self.tagIDName = tagIDName
        self.container = container
        self.tlvs = tlvs
        self.message = message
        self.assemblyProblem = assemblyProblem
    }

    public func writeJSONMembers(_ out: OutputBuffer, _ context: RenderContext) {
        out.ascii(",\"source\":\""); out.ascii(source.jsonName)
        out.ascii("\",\"frames\":")
        out.jsonNumbers(frames.numbers)
        if frames.omitted > 0 { out.ascii(",\"frames_omitted\":"); out.int(frames.omitted) }
        out.ascii(",\""); out.ascii(tagIDName); out.ascii("\":")
        if let tagID {
            out.byte(0x22); ByteView.with(tagID) { out.hex($0, uppercase: true) }; out.byte(0x22)
        } else {
            out.ascii("null")
        }
        out.ascii(",\"container\":")
        switch container {
        case .t2t(let cc)?: NDEFRendering.writeJSON(cc, to: out)
        case .t3t(let a)?: NDEFRendering.writeJSON(a, to: out)
        case .t4t(let cc)?: NDEFRendering.writeJSON(cc, to: out)
        case .t5t(let cc)?: NDEFRendering.writeJSON(cc, to: out)
        case nil: out.ascii("null")
        }
        if let tlvs {
            out.ascii(",\"tlvs\":")
            NDEFRendering.writeTLVsJSON(tlvs, to: out)
        }
        out.ascii(",\"complete\":")
        out.ascii(assemblyProblem == nil ? "true" : "false")
        if let assemblyProblem {
            out.ascii(",\"incomplete\":\""); out.jsonEscaped(assemblyProblem); out.byte(0x22)
            out.ascii(",\"records\":[],\"errors\":[]")
        } else {
            NDEFRendering.writeJSONMembers(NDEFMessage(parsing: message), to: out, mask: context.redact)
        }
    }

    public func writeText(_ out: OutputBuffer, _ context: RenderContext) {
        out.pad(toColumn: context.indent, lineStart: out.position)
        out.ascii("NDEF (")
        out.ascii(source.jsonName)
        if let tagID {
            out.ascii(", "); out.ascii(tagIDName); out.byte(0x20)
            ByteView.with(tagID) { out.hex($0, uppercase: true) }
        }
        out.ascii(")")
        if let assemblyProblem {
            out.ascii(": incomplete: "); out.string(assemblyProblem); out.byte(0x0A)
            return
        }
        out.byte(0x0A)
        if let tlvs { NDEFRendering.writeTLVsText(tlvs, to: out, indent: context.indent + 2) }
        NDEFRendering.writeText(NDEFMessage(parsing: message), to: out, indent: context.indent + 2, mask: context.redact)
    }
}
