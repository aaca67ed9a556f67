// Another service checking this app's access tokens, as the README's recipe does: jose's
// createRemoteJWKSet and jwtVerify alone, in a process of its own, with no secret shared.
//   node test/helpers/resource-server.mjs <jwks url> <issuer> <audience> <algorithm> <token>
// Prints the verified claims as JSON and exits 0, or prints jose's error code and exits 1.
import { createRemoteJWKSet, jwtVerify } from 'jose';

const [jwksUrl, issuer, audience, algorithm, token] = process.argv.slice(2);
const jwks = createRemoteJWKSet(new URL(jwksUrl));

try {
  const { payload } = await jwtVerify(token, jwks, { issuer, audience, typ: 'at+jwt', algorithms: [algorithm] });
  console.log(JSON.stringify(payload));
} catch (error) {
  console.log(error.code ?? error.message);
  process.exitCode = 1;
}
