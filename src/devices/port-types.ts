/** What SerialPort.list() says about a port (@serialport/bindings-interface PortInfo). */
export interface SerialPortInfo {
  path: string;
  manufacturer: string | undefined;
  serialNumber: string | undefined;
  pnpId: string | undefined;
  locationId: string | undefined;
  productId: string | undefined;
  vendorId: string | undefined;
}

/**
 * Any serialport binding: the real one (bindings-cpp) or MockBinding in the demo and
 * tests. Declared structurally: the interfaces package ships no ESM type entry.
 */
export interface SerialBinding {
  list(): Promise<SerialPortInfo[]>;
  open(options: { path: string; baudRate: number } & Record<string, unknown>): Promise<unknown>;
}
