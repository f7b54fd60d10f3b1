export {
  type DeviceState,
  type Fleet,
  type FleetDeviceView,
  type FleetOptions,
  type FleetStats,
  type OutcomeOdds,
  type SimulatedDevice,
  startFleet,
} from './fleet.js';
export { fetchFrom } from './http-fetch.js';
