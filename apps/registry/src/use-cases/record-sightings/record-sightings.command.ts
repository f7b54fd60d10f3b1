import { type CustomerId, type DevicesSeen, isHwid, NAME_PATTERN } from '@app/contracts';
import { requireCustomerId } from '@app/platform';
import type { Sighting } from '../../repositories/device-sighting.repository.js';
import type { OfferRow } from '../../repositories/rollout-offer.repository.js';

/** Stored characters of a firmware version a device reported. */
const MAX_FW_VERSION = 255;

/**
 * RegistryEvents.devicesSeen, built from the event: the valid items, the latest per device, by
 * customer. Malformed items are not refused (an event has no one to answer) but counted in
 * `dropped`.
 */
export class RecordSightingsCommand {
  private constructor(
    readonly byCustomer: ReadonlyMap<CustomerId, Sighting[]>,
    readonly dropped: number,
    /** Rollout offers of every item (not only the latest per device), by customer. */
    readonly offers: ReadonlyMap<CustomerId, OfferRow[]>,
  ) {}

  static create(event: DevicesSeen): RecordSightingsCommand {
    const { byCustomer, dropped, offers } = latestByCustomer(event);
    return new RecordSightingsCommand(byCustomer, dropped, offers);
  }
}

/** The valid items of an event, the latest per device, by customer. */
function latestByCustomer(event: DevicesSeen): { byCustomer: Map<CustomerId, Sighting[]>; dropped: number; offers: Map<CustomerId, OfferRow[]> } {
  const latest = new Map<CustomerId, Map<string, Sighting>>();
  const offers = new Map<CustomerId, OfferRow[]>();
  let dropped = 0;
  // Validated once per distinct customer id text (a batch is mostly one or a few customers).
  const customers = new Map<unknown, CustomerId | null>();
  for (const item of Array.isArray(event?.items) ? (event.items as unknown[]) : []) {
    const parsed = parseItem(item, customers);
    if (!parsed) {
      dropped++;
      continue;
    }
    let devices = latest.get(parsed.customerId);
    if (!devices) latest.set(parsed.customerId, (devices = new Map<string, Sighting>()));
    const previous = devices.get(parsed.sighting.hwid);
    if (!previous || previous.at <= parsed.sighting.at) devices.set(parsed.sighting.hwid, parsed.sighting);
    const offered = offersOf(item, parsed.sighting);
    if (offered.length) offers.set(parsed.customerId, [...(offers.get(parsed.customerId) ?? []), ...offered]);
  }
  return { byCustomer: new Map([...latest].map(([customerId, devices]) => [customerId, [...devices.values()]])), dropped, offers };
}

/** At most this many rollout offers per sighting (one per rollout build newer than the device's version). */
const MAX_OFFERS_PER_ITEM = 32;
const ROLLOUT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The valid rollout offers of an item; malformed ones are left out. */
function offersOf(item: unknown, sighting: Sighting): OfferRow[] {
  const raw = (item as { offers?: unknown }).offers;
  if (!Array.isArray(raw)) return [];
  const offers: OfferRow[] = [];
  for (const offer of raw.slice(0, MAX_OFFERS_PER_ITEM) as unknown[]) {
    if (!offer || typeof offer !== 'object') continue;
    const { rolloutId, buildId, versionKey, stage } = offer as Record<string, unknown>;
    if (typeof rolloutId !== 'string' || !ROLLOUT_ID.test(rolloutId) || typeof buildId !== 'string' || !ROLLOUT_ID.test(buildId)) continue;
    if (typeof versionKey !== 'string' || !VERSION_KEY.test(versionKey) || !Number.isInteger(stage) || (stage as number) < 0 || (stage as number) > 99)
      continue;
    offers.push({ rolloutId, buildId, versionKey, stage: stage as number, hwid: sighting.hwid, at: sighting.at });
  }
  return offers;
}

function parseItem(item: unknown, customers: Map<unknown, CustomerId | null>): { customerId: CustomerId; sighting: Sighting } | null {
  if (!item || typeof item !== 'object') return null;
  const { customerId: rawCustomerId, hwid, fwVersion, at, hwName, hwVersion, fwName, versionKey } = item as Record<string, unknown>;
  if (!isHwid(hwid) || typeof fwVersion !== 'string' || typeof at !== 'string') return null;
  let customerId = customers.get(rawCustomerId);
  if (customerId === undefined) {
    try {
      customerId = requireCustomerId(rawCustomerId);
    } catch {
      customerId = null;
    }
    customers.set(rawCustomerId, customerId);
  }
  if (customerId === null) return null;
  const time = new Date(at);
  if (Number.isNaN(time.getTime())) return null;
  const line =
    isProductName(hwName) && isProductName(hwVersion) && isProductName(fwName) && typeof versionKey === 'string' && VERSION_KEY.test(versionKey)
      ? { hwName, hwVersion, fwName, versionKey }
      : null;
  return { customerId, sighting: { hwid, fwVersion: fwVersion.replace(/\u0000/g, '').slice(0, MAX_FW_VERSION), at: time, line } };
}

/** The update check's rule for hw_name, hw_version and fw_name (the product line is recorded only when it holds). */
const PRODUCT_NAME = new RegExp(NAME_PATTERN);
function isProductName(value: unknown): value is string {
  return typeof value === 'string' && PRODUCT_NAME.test(value);
}
/** A version order key as hex: a version of at most 64 characters encodes to well under 1 KiB. */
const VERSION_KEY = /^(?:[0-9a-f]{2}){0,1024}$/;
