import { Secret, TOTP } from 'otpauth';

/** RFC 6238 as every authenticator app expects it: SHA-1, 6 digits, 30-second steps. */
const PERIOD_SECONDS = 30;
/** Codes of the previous and the next step are accepted too, for clock drift. */
const WINDOW = 1;

function totpFor(secret: string, issuer = '', label = 'account'): TOTP {
  return new TOTP({ issuer, label, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS });
}

/** A new random secret (160 bits, as RFC 4226 recommends), base32-encoded. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export interface Enrollment {
  secret: string;
  otpauthUrl: string;
  qrCodeDataUrl: string;
}

/** What an authenticator app needs: the secret, its otpauth:// URI and that URI as a QR code. */
export async function enrollment(secret: string, issuer: string, accountName: string): Promise<Enrollment> {
  const otpauthUrl = totpFor(secret, issuer, accountName).toString();
  // Loaded on first use: the QR encoder is needed once per enrollment, not to start the app.
  const { default: QRCode } = await import('qrcode');
  return { secret, otpauthUrl, qrCodeDataUrl: await QRCode.toDataURL(otpauthUrl) };
}

/** The time step the code belongs to, or undefined when it matches none in the window. */
export function matchingTimeStep(secret: string, code: string, now = Date.now()): number | undefined {
  const totp = totpFor(secret);
  const delta = totp.validate({ token: code, timestamp: now, window: WINDOW });
  return delta === null ? undefined : totp.counter({ timestamp: now }) + delta;
}
