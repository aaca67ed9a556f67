import { isIP } from 'node:net';
import { ConfigError, type Config } from '../../../config.js';

/** Who passkeys are made for: the domain they are bound to and the pages that may use them. */
export interface RelyingParty {
  id: string;
  name: string;
  origins: string[];
}

const problem = (line: string) => new ConfigError(`Invalid configuration:\n  ${line}`);

function parseOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw problem(
      `WEBAUTHN_ORIGINS must be a comma-separated list of origins such as https://app.example.com (got ${JSON.stringify(value)})`,
    );
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== value.replace(/\/$/, '')) {
    throw problem(`WEBAUTHN_ORIGINS must hold origins only, scheme://host[:port] without a path (got ${JSON.stringify(value)})`);
  }
  return url.origin;
}

/** An origin's host is the RP id or one of its subdomains; browsers refuse anything else. */
const onDomain = (host: string, rpId: string) => host === rpId || host.endsWith(`.${rpId}`);

/**
 * The relying party from WEBAUTHN_RP_ID, WEBAUTHN_RP_NAME and WEBAUTHN_ORIGINS, by default the host
 * name and origin of APP_URL. Checked once at start-up: a browser would refuse every passkey of an
 * RP id that is an IP address, a bare top-level name, or not the domain of each origin, so the app
 * refuses to start instead of failing at the first sign-in.
 */
export function relyingParty(config: Config): RelyingParty {
  const origins = (config.WEBAUTHN_ORIGINS?.split(',') ?? [config.APP_URL])
    .map((value) => value.trim())
    .filter(Boolean)
    .map(parseOrigin);
  if (origins.length === 0) throw problem('WEBAUTHN_ORIGINS must name at least one origin');
  const appHost = new URL(config.APP_URL).hostname.replace(/^\[|\]$/g, '');
  const id = (config.WEBAUTHN_RP_ID ?? appHost).toLowerCase();
  if (isIP(id)) {
    const variable = config.WEBAUTHN_RP_ID ? 'WEBAUTHN_RP_ID' : 'WEBAUTHN_RP_ID (APP_URL is an IP address)';
    throw problem(
      `${variable} must be a domain name: an IP address cannot be a passkey's RP id. Set WEBAUTHN_RP_ID to the domain the pages are served from`,
    );
  }
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(id) || (!id.includes('.') && id !== 'localhost')) {
    throw problem(`WEBAUTHN_RP_ID must be a registrable domain name such as example.com (got ${JSON.stringify(id)})`);
  }
  for (const origin of origins) {
    if (!onDomain(new URL(origin).hostname, id)) {
      throw problem(
        `WEBAUTHN_RP_ID must be the host of every origin in WEBAUTHN_ORIGINS or a parent domain of it: ${origin} is not on ${id}`,
      );
    }
  }
  return { id, name: config.WEBAUTHN_RP_NAME, origins };
}
