// The header Linux usbmon puts before each USB packet it captures (Documentation/usb/
// usbmon.rst, "binary interface"; drivers/usb/mon/mon_bin.c). pcap link type 220
// (LINKTYPE_USB_LINUX_MMAPPED) carries all 64 bytes, link type 189 (LINKTYPE_USB_LINUX)
// the first 48:
//    0  u64 id          URB tag, the same in its submission and its completion
//    8  u8  type        'S' submission, 'C' completion (callback), 'E' submission error
//    9  u8  xfer_type   0 isochronous, 1 interrupt, 2 control, 3 bulk
//   10  u8  epnum       endpoint number, bit 7 set for IN (device to host)
//   11  u8  devnum      device address
//   12  u16 busnum
//   14  u8  flag_setup  0 when the setup packet at 40 is present
//   15  u8  flag_data   0 (or '=') when data follows; '<' or '>' when not captured
//   16  s64 ts_sec, 24 s32 ts_usec
//   28  s32 status      0 or a negative errno
//   32  u32 length      bytes of the URB (submitted or actually transferred)
//   36  u32 len_cap     bytes of data captured after the header
//   40  u8[8] setup     (control submissions) or iso error_count/numdesc
//   48  s32 interval, 52 s32 start_frame, 56 u32 xfer_flags, 60 u32 ndesc   (220 only)
// For link type 220, isochronous transfers put ndesc 16-byte descriptors between the
// header and the data. The fields are in the byte order of the host that captured them;
// libpcap writes files in that order too, so the file's byte order is used.

public struct UsbmonHeader: Sendable {
    public static let mmappedLength = 64
    public static let shortLength = 48

    public var urbID: UInt64
    /// 'S', 'C' or 'E' (ASCII).
    public var event: UInt8
    /// 0 isochronous, 1 interrupt, 2 control, 3 bulk.
    public var transfer: UInt8
    public var endpoint: UInt8
    public var device: UInt8
    public var bus: UInt16
    public var status: Int32
    public var urbLength: UInt32
    public var capturedLength: UInt32
    /// Bytes before the data: 48 or 64, plus isochronous descriptors.
    public var dataOffset: Int
    /// The data bytes present (at most `capturedLength`).
    public var data: ByteView

    public var isIn: Bool { endpoint & 0x80 != 0 }
    public var isBulk: Bool { transfer == 3 }
    /// Bytes `capturedLength` announces that the record does not hold.
    public var missingData: Int { Int(capturedLength) - data.count }
    /// Bus and device address in one key.
    public var deviceKey: UInt32 { UInt32(bus) << 8 | UInt32(device) }

    public static func transferName(_ t: UInt8) -> StaticString {
        switch t {
        case 0: "isochronous"
        case 1: "interrupt"
        case 2: "control"
        case 3: "bulk"
        default: "unknown"
        }
    }

    /// Reads the header at the start of a record of link type 220 (`mmapped`) or 189.
    /// Nil when the record is shorter than the header.
    public static func parse(_ v: ByteView, mmapped: Bool, bigEndian: Bool) -> UsbmonHeader? {
        let length = mmapped ? mmappedLength : shortLength
        guard v.count >= length else { return nil }
        let order = FieldReader(bigEndian: bigEndian)
        guard let id = order.u64(v, 0), let event = v.byte(8), let transfer = v.byte(9), let endpoint = v.byte(10),
              let device = v.byte(11), let bus = order.u16(v, 12), let status = order.u32(v, 28),
              let urbLength = order.u32(v, 32), let captured = order.u32(v, 36) else { return nil }
        var offset = length
        if mmapped, transfer == 0, let ndesc = order.u32(v, 60) {
            // Isochronous descriptors; a count the record cannot hold leaves no data.
            offset = ndesc > UInt32(v.count / 16) ? v.count : min(v.count, length + Int(ndesc) * 16)
        }
        let present = max(0, v.count - offset)
        let data = v.suffix(from: offset).prefix(min(present, Int(captured)))
        return UsbmonHeader(urbID: id, event: event, transfer: transfer, endpoint: endpoint, device: device, bus: bus,
                            status: Int32(bitPattern: status), urbLength: urbLength, capturedLength: captured,
                            dataOffset: offset, data: data)
    }
}
