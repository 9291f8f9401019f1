export { SimulatedPorts, DeviceEnd, type SimulatedPortIdentity } from './simulated-ports.js';
export { SimFramedDevice, type SimDeviceOptions } from './sim-framed-device.js';
export {
  SimulatedReader,
  SIM_READER_INFO,
  type SimulatedCard,
  type SimulatedReaderOptions,
} from './simulated-reader.js';
export { SimulatedDisplay, SIM_DISPLAY_INFO, type SimulatedScreen } from './simulated-display.js';
export { SimulatedScanner } from './simulated-scanner.js';
export { startSimulatedPeripherals, type SimulatedPeripherals, type StartSimulatedOptions } from './start.js';
