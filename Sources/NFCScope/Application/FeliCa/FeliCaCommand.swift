// FeliCa command and response codes (JIS X 6319-4 and the FeliCa command
// references). A response code is its command's code plus one, so one table,
// indexed by the even command code, names both sides of every exchange.

public enum FeliCaCommand: UInt8, Sendable, CaseIterable {
    case polling = 0x00
    case requestService = 0x02
    case requestResponse = 0x04
    case readWithoutEncryption = 0x06
    case writeWithoutEncryption = 0x08
    case searchServiceCode = 0x0A
    case requestSystemCode = 0x0C
    case requestBlockInformation = 0x0E
    case authentication1DES = 0x10
    case authentication2DES = 0x12
    case readDES = 0x14
    case writeDES = 0x16
    case requestCodeList = 0x1A
    case requestBlockInformationEx = 0x1E
    case setParameter = 0x20
    case getContainerIssueInformation = 0x22
    case getAreaInformation = 0x24
    case getNodeProperty = 0x28
    case getContainerProperty = 0x2E
    case requestServiceV2 = 0x32
    case internalAuthenticateAndRead = 0x34
    case externalAuthenticateAndWrite = 0x36
    case getSystemStatus = 0x38
    case requestProductInformation = 0x3A
    case requestSpecificationVersion = 0x3C
    case resetMode = 0x3E
    case authentication1AES = 0x40
    case authentication2AES = 0x42
    case readAES = 0x44
    case writeAES = 0x46
    case getContainerID = 0x70
    /// NFC-DEP (ISO 18092) requests ride on NFC-F framing with command byte D4, answers D5.
    case nfcDEP = 0xD4
    /// Echo is F0 00 both ways; it has no separate response code.
    case echo = 0xF0

    /// The command a frame's code belongs to, and whether the code is the response's.
    public static func from(code: UInt8) -> (FeliCaCommand, response: Bool)? {
        if code == 0xF0 { return (.echo, false) }
        if let c = FeliCaCommand(rawValue: code) { return (c, false) }
        if code & 1 == 1, let c = FeliCaCommand(rawValue: code &- 1), c != .echo { return (c, true) }
        return nil
    }

    public var responseCode: UInt8 { self == .echo ? 0xF0 : rawValue &+ 1 }

    public var name: StaticString {
        switch self {
        case .polling: "Polling"
        case .requestService: "Request Service"
        case .requestResponse: "Request Response"
        case .readWithoutEncryption: "Read Without Encryption"
        case .writeWithoutEncryption: "Write Without Encryption"
        case .searchServiceCode: "Search Service Code"
        case .requestSystemCode: "Request System Code"
        case .requestBlockInformation: "Request Block Information"
        case .authentication1DES: "Authentication1 (DES)"
        case .authentication2DES: "Authentication2 (DES)"
        case .readDES: "Read (DES)"
        case .writeDES: "Write (DES)"
        case .requestCodeList: "Request Code List"
        case .requestBlockInformationEx: "Request Block Information Ex"
        case .setParameter: "Set Parameter"
        case .getContainerIssueInformation: "Get Container Issue Information"
        case .getAreaInformation: "Get Area Information"
        case .getNodeProperty: "Get Node Property"
        case .getContainerProperty: "Get Container Property"
        case .requestServiceV2: "Request Service v2"
        case .internalAuthenticateAndRead: "Internal Authenticate and Read"
        case .externalAuthenticateAndWrite: "External Authenticate and Write"
        case .getSystemStatus: "Get System Status"
        case .requestProductInformation: "Request Product Information"
        case .requestSpecificationVersion: "Request Specification Version"
        case .resetMode: "Reset Mode"
        case .authentication1AES: "Authentication1 (AES)"
        case .authentication2AES: "Authentication2 (AES)"
        case .readAES: "Read (AES)"
        case .writeAES: "Write (AES)"
        case .getContainerID: "Get Container ID"
        case .nfcDEP: "NFC-DEP"
        case .echo: "Echo"
        }
    }

    public var jsonName: StaticString {
        switch self {
        case .polling: "polling"
        case .requestService: "request_service"
        case .requestResponse: "request_response"
        case .readWithoutEncryption: "read_without_encryption"
        case .writeWithoutEncryption: "write_without_encryption"
        case .searchServiceCode: "search_service_code"
        case .requestSystemCode: "request_system_code"
        case .requestBlockInformation: "request_block_information"
        case .authentication1DES: "authentication1_des"
        case .authentication2DES: "authentication2_des"
        case .readDES: "read_des"
        case .writeDES: "write_des"
        case .requestCodeList: "request_code_list"
        case .requestBlockInformationEx: "request_block_information_ex"
        case .setParameter: "set_parameter"
        case .getContainerIssueInformation: "get_container_issue_information"
        case .getAreaInformation: "get_area_information"
        case .getNodeProperty: "get_node_property"
        case .getContainerProperty: "get_container_property"
        case .requestServiceV2: "request_service_v2"
        case .internalAuthenticateAndRead: "internal_authenticate_and_read"
        case .externalAuthenticateAndWrite: "external_authenticate_and_write"
        case .getSystemStatus: "get_system_status"
        case .requestProductInformation: "request_product_information"
        case .requestSpecificationVersion: "request_specification_version"
        case .resetMode: "reset_mode"
        case .authentication1AES: "authentication1_aes"
        case .authentication2AES: "authentication2_aes"
        case .readAES: "read_aes"
        case .writeAES: "write_aes"
        case .getContainerID: "get_container_id"
        case .nfcDEP: "nfc_dep"
        case .echo: "echo"
        }
    }

    /// Mutual authentication and the reads and writes under its session key: the
    /// payload is ciphertext or MAC material, shown as bytes and marked protected.
    public var isProtected: Bool {
        switch self {
        case .authentication1DES, .authentication2DES, .readDES, .writeDES,
             .authentication1AES, .authentication2AES, .readAES, .writeAES,
             .internalAuthenticateAndRead, .externalAuthenticateAndWrite:
            true
        default:
            false
        }
    }

    /// Whether the IDm follows the code (in the request; responses carry one when
    /// the request did, except for Polling, whose answer starts with it anyway).
    public func carriesIDm(response: Bool) -> Bool {
        switch self {
        case .polling: response
        case .echo, .nfcDEP, .getContainerID: false
        default: true
        }
    }
}
