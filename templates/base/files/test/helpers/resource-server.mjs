// Another service checking this app's access tokens, as the README's recipe does: jose's
// createRemoteJWKSet and jwtVerify alone, in a process of its own, with no secret shared.
//   JWKS_URL=… ISSUER=… AUDIENCE=… ALGORITHM=EdDSA node test/helpers/resource-server.mjs <token>
// Prints the verified claims as JSON and exits 0, or prints jose's error code and exits 1.
import { createRemoteJWKSet, jwtVerify } from 'jose';

const jwks = createRemoteJWKSet(new URL(process.env.JWKS_URL));

try {
  const { payload } = await jwtVerify(process.argv[2], jwks, {
    issuer: process.env.ISSUER,
    audience: process.env.AUDIENCE,
    typ: 'at+jwt',
    algorithms: [process.env.ALGORITHM],
  });
  console.log(JSON.stringify(payload));
} catch (error) {
  console.log(error.code ?? error.message);
  process.exitCode = 1;
}
