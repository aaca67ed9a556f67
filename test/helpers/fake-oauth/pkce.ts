/**
 * PKCE (RFC 7636): checks a challenge at authorize and a verifier at the token endpoint.
 */
import { createHash } from 'node:crypto';
import type { ProviderSpec } from './spec.js';
import type { Authorization } from './types.js';

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** An authorize-time problem with the challenge, or undefined when it is acceptable. */
export function challengeProblem(spec: ProviderSpec, challenge: string | undefined, method: string | undefined): string | undefined {
  if (spec.pkce.methods.length === 0) return undefined;
  if (!challenge && spec.pkce.required) return 'code_challenge is required.';
  if (!challenge) return method ? 'code_challenge_method without code_challenge.' : undefined;
  const effective = method ?? 'plain';
  if (!(spec.pkce.methods as readonly string[]).includes(effective)) return `code_challenge_method ${effective} is not supported.`;
  if (!VERIFIER.test(challenge)) return 'code_challenge is malformed.';
  return undefined;
}

/** A token-time problem with the verifier, or undefined when it matches (or PKCE is ignored). */
export function verifierProblem(spec: ProviderSpec, authorization: Authorization, verifier: string | undefined): string | undefined {
  if (spec.pkce.methods.length === 0) return undefined;
  const { codeChallenge: challenge, codeChallengeMethod: method = 'plain' } = authorization;
  if (!challenge) return verifier === undefined ? undefined : 'code_verifier sent but the authorization request had no code_challenge.';
  if (verifier === undefined) return 'code_verifier is required.';
  if (!VERIFIER.test(verifier)) return 'code_verifier is malformed.';
  const computed = method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  return computed === challenge ? undefined : 'code_verifier does not match the code_challenge.';
}
