export * from './api.js';
export {
  createPeripherals,
  type PeripheralSet,
  type DeviceStatusReport,
  type CreatePeripheralsOptions,
} from './peripherals.js';
export { SerialCardReader, type CardReaderOptions } from './card-reader.js';
export { SerialCustomerDisplay, MAX_DISPLAY_LINES } from './customer-display.js';
export { SerialBarcodeScanner, LineSession } from './barcode-scanner.js';
export {
  PortSupervisor,
  defaultDeviceBackoff,
  type DeviceStatusEntry,
  type ConnectAttempt,
  type SupervisorState,
} from './port-supervisor.js';
export { FramedSession } from './framed-session.js';
export { qrMatrix, packModules, unpackModules, rowBytes, type PackedQr } from './qr-matrix.js';
export {
  systemBinding,
  openSerialPort,
  closeSerialPort,
  type SerialBinding,
  type SerialPortInfo,
  type OpenPort,
} from './serial-port.js';
export { findPortByUsb, matchesUsb, describeUsb, type UsbMatch } from './port-finder.js';
export { withUdevFallback, listPortsFromSysfs, udevFailure, udevListError } from './port-list.js';
export { portOpenError } from './port-errors.js';
export type { DriverOptions, PingResult } from './framed-device.js';
export { Link, type LinkOptions, type LinkPayload } from './link/index.js';
