// Text and JSON of a CCID message frame (LinkInfo.ccid): the message type, slot and
// sequence number, and what its header bytes mean (CCID 1.1 sections 6.1 and 6.2).
// Plain ASCII from StaticStrings and numbers, like the rest of the link rendering.

extension CCIDMessage {
    public func writeInfo(_ out: OutputBuffer) {
        out.ascii("CCID ")
        out.ascii(Self.name(type) ?? "unknown")
        out.ascii(" slot ")
        out.int(Int(slot))
        out.ascii(" seq ")
        out.int(Int(seq))
        if fromReader {
            if answers != 0, let name = Self.name(answers) {
                out.ascii(" (")
                out.ascii(name)
                out.byte(0x29)
            }
            out.ascii(": ICC ")
            out.ascii(Self.iccStatusName(iccStatus))
            switch commandStatus {
            case 0: break
            case 1:
                out.ascii(", failed ")
                out.hexByte(b8, uppercase: true)
                out.byte(0x20)
                out.ascii(Self.errorName(b8))
            case 2:
                out.ascii(", time extension x")
                out.int(Int(b8))
            default:
                out.ascii(", command status RFU")
            }
            if type == 0x80 && b9 != 0 {
                out.ascii(", chain ")
                out.ascii(Self.chainName(b9))
            }
            if type == 0x81 {
                out.ascii(", ")
                out.ascii(Self.clockStatusName(b9))
            }
            if type == 0x80 && answers == 0x62 && commandStatus == 0 && !data.isEmpty { out.ascii(", ATR") }
        } else if type == 0x62 {
            out.ascii(", power ")
            out.ascii(Self.powerSelectName(b7))
        }
        if truncated {
            out.ascii(", ")
            out.int(data.count)
            out.ascii(" of ")
            out.int(declaredLength)
            out.ascii(" data bytes")
        }
    }

    public func writeJSONMembers(_ out: OutputBuffer) {
        out.ascii(",\"ccid\":{\"message\":\"")
        out.ascii(fromReader ? "RDR_to_PC_" : "PC_to_RDR_")
        out.ascii(Self.name(type) ?? "unknown")
        codeMember("\",\"code\":\"", type, out)
        intMember(",\"slot\":", Int(slot), out)
        intMember(",\"seq\":", Int(seq), out)
        intMember(",\"length\":", declaredLength, out)
        hexMember(",\"data\":\"", data, out)
        if fromReader {
            if answers != 0, let name = Self.name(answers) {
                out.ascii(",\"answers\":\"PC_to_RDR_"); out.ascii(name); out.byte(0x22)
            }
            codeMember(",\"status\":\"", b7, out)
            intMember(",\"icc_status\":", Int(iccStatus), out)
            stringMember(",\"icc_status_name\":\"", Self.iccStatusName(iccStatus), out)
            intMember(",\"command_status\":", Int(commandStatus), out)
            stringMember(",\"command_status_name\":\"", Self.commandStatusName(commandStatus), out)
            codeMember(",\"error\":\"", b8, out)
            if commandStatus == 1 { stringMember(",\"error_name\":\"", Self.errorName(b8), out) }
            if type == 0x80 {
                codeMember(",\"chain\":\"", b9, out)
                stringMember(",\"chain_name\":\"", Self.chainName(b9), out)
            } else if type == 0x81 {
                intMember(",\"clock_status\":", Int(b9), out)
                stringMember(",\"clock_status_name\":\"", Self.clockStatusName(b9), out)
            }
        } else if type == 0x62 {
            intMember(",\"power_select\":", Int(b7), out)
            stringMember(",\"power_select_name\":\"", Self.powerSelectName(b7), out)
        } else if type == 0x6F {
            intMember(",\"bwi\":", Int(b7), out)
            intMember(",\"level_parameter\":", Int(b8) | Int(b9) << 8, out)
        }
        if truncated { boolMember(",\"truncated\":", true, out) }
        out.byte(0x7D)
    }
}
