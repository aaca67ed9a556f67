import { isIP } from 'node:net';

/** Names Express accepts for groups of addresses; each is a private range, never the Internet. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** The most proxy hops believed: more than a few means the count was a guess, not a setup. */
const MAX_HOPS = 5;

/** The widest subnets accepted: a /8 (IPv4) or a /16 (IPv6); anything wider covers clients too. */
const MIN_PREFIX = { 4: 8, 6: 16 } as const;

const WHAT_TO_SET =
  'Set the number of proxies in front of the app (1 behind one load balancer, at most 5) or their addresses or subnets (no wider than /8 for IPv4, /16 for IPv6), e.g. 10.0.0.0/8';

/** ::ffff:10.0.0.1, however it is written (URL prints IPv6 addresses in their short form). */
function isIPv4Mapped(address: string): boolean {
  // URL.canParse is false for an address with a zone (fe80::1%eth0), which is never IPv4-mapped.
  const url = `http://[${address}]/`;
  return URL.canParse(url) && /^\[::ffff:[0-9a-f]{1,4}:[0-9a-f]{1,4}\]$/.test(new URL(url).hostname);
}

/** Why an entry cannot be trusted, or undefined when it names proxies. */
function entryProblem(entry: string): string | undefined {
  if (NAMED_RANGES.has(entry)) return undefined;
  const [address, bits, extra] = entry.split('/');
  const version = address ? isIP(address) : 0;
  if (extra !== undefined || (version !== 4 && version !== 6)) {
    return `'${entry}' is not a hop count, an IP address, a subnet (10.0.0.0/8) or one of loopback, linklocal, uniquelocal`;
  }
  if (bits === undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  if (!/^\d+$/.test(bits) || Number(bits) > max) return `'${entry}' has an invalid prefix length (0 to ${max})`;
  // Express reads an IPv4 address written as IPv6 (::ffff:0.0.0.0/96) as the IPv4 subnet, 96 bits shorter.
  const mapped = version === 6 && isIPv4Mapped(address!);
  const prefix = mapped ? Number(bits) - 96 : Number(bits);
  if (prefix < MIN_PREFIX[mapped ? 4 : version]) {
    return `'${entry}' is wider than /${MIN_PREFIX[mapped ? 4 : version]} and would trust clients to pick their own address (X-Forwarded-For). ${WHAT_TO_SET}`;
  }
  return undefined;
}

/**
 * X-Forwarded-For is believed only as far as TRUST_PROXY names the proxies in front of the app:
 * a hop count ("1" behind one load balancer) or their addresses and subnets. Whatever trusts
 * every client ("true", a large hop count, 0.0.0.0/0 or another very wide subnet) would let any
 * client choose its own address and slip past every per-IP limit, so it is refused.
 * Returns the value for Express's "trust proxy" setting, or a message saying what is wrong.
 */
export function parseTrustProxy(raw: string | undefined): { value: false | number | string[] } | string {
  const value = raw?.trim() ?? '';
  if (value === '' || value === 'false' || value === '0') return { value: false };
  if (value === 'true') return `true trusts every client to pick its own address (X-Forwarded-For). ${WHAT_TO_SET}`;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > MAX_HOPS) return `${value} hops would trust addresses the clients wrote themselves (X-Forwarded-For). ${WHAT_TO_SET}`;
    return { value: hops };
  }
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const problem = entryProblem(entry);
    if (problem) return problem;
  }
  return { value: entries };
}
