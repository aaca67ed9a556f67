import { isIP } from 'node:net';

/** Names Express accepts for groups of addresses. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isAddressOrSubnet(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const [address, bits, extra] = entry.split('/');
  if (extra !== undefined || !address || !isIP(address)) return false;
  if (bits === undefined) return true;
  const max = isIP(address) === 4 ? 32 : 128;
  return /^\d+$/.test(bits) && Number(bits) <= max;
}

/**
 * X-Forwarded-For is believed only as far as TRUST_PROXY names the proxies in front of the app:
 * a hop count ("1" behind one load balancer) or their addresses and subnets. "true" would let
 * every client choose its own address and slip past every per-IP limit, so it is refused.
 * Returns the value for Express's "trust proxy" setting, or a message saying what is wrong.
 */
export function parseTrustProxy(raw: string | undefined): { value: false | number | string[] } | string {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false' || value === '0') return { value: false };
  if (value === 'true') {
    return 'true trusts every client to pick its own address (X-Forwarded-For). Set the number of proxies in front of the app (1 behind one load balancer) or their addresses, e.g. 10.0.0.0/8';
  }
  if (/^\d+$/.test(value)) return { value: Number(value) };
  const entries = value.split(',').map((entry) => entry.trim());
  const bad = entries.find((entry) => !isAddressOrSubnet(entry));
  if (bad !== undefined) {
    return `'${bad}' is not a hop count, an IP address, a subnet (10.0.0.0/8) or one of loopback, linklocal, uniquelocal`;
  }
  return { value: entries };
}
