/**
 * A thin layer over navigator.credentials for passkeys: the API sends and takes WebAuthn's
 * standard JSON forms, the browser wants ArrayBuffers. Uses the browser's own converters
 * (PublicKeyCredential.parseCreationOptionsFromJSON, credential.toJSON) where it has them.
 */

const toBytes = (text) => {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  return Uint8Array.from(atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '=')), (char) => char.charCodeAt(0));
};

const toText = (buffer) =>
  btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

const withIds = (list = []) => list.map((credential) => ({ ...credential, id: toBytes(credential.id) }));

function creationOptions(json) {
  if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
  return { ...json, challenge: toBytes(json.challenge), user: { ...json.user, id: toBytes(json.user.id) }, excludeCredentials: withIds(json.excludeCredentials) };
}

function requestOptions(json) {
  if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
  return { ...json, challenge: toBytes(json.challenge), allowCredentials: withIds(json.allowCredentials) };
}

/** The credential as RegistrationResponseJSON or AuthenticationResponseJSON. */
function toJSON(credential) {
  if (typeof credential.toJSON === 'function') return credential.toJSON();
  const { response } = credential;
  const common = {
    id: credential.id,
    rawId: toText(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
  };
  if (response.attestationObject) {
    return {
      ...common,
      response: { clientDataJSON: toText(response.clientDataJSON), attestationObject: toText(response.attestationObject), transports: response.getTransports?.() ?? [] },
    };
  }
  return {
    ...common,
    response: {
      clientDataJSON: toText(response.clientDataJSON),
      authenticatorData: toText(response.authenticatorData),
      signature: toText(response.signature),
      userHandle: response.userHandle ? toText(response.userHandle) : undefined,
    },
  };
}

/** The browser's refusals, in words a person can act on. AbortError passes through as it is. */
function explain(error) {
  if (error?.name === 'AbortError') return error;
  if (error?.name === 'NotAllowedError') return new Error('The passkey prompt was closed or timed out. Try again.');
  if (error?.name === 'InvalidStateError') return new Error('This device already holds a passkey for your account.');
  if (error?.name === 'SecurityError') return new Error('Passkeys are not allowed on this address (they need https and the site\'s own domain).');
  return error instanceof Error ? error : new Error('The passkey could not be used.');
}

export const passkeysSupported = () => typeof window.PublicKeyCredential === 'function' && Boolean(navigator.credentials);

/** Whether the browser offers passkeys in the username field's autofill (conditional mediation). */
export async function autofillAvailable() {
  return passkeysSupported() && Boolean(await PublicKeyCredential.isConditionalMediationAvailable?.().catch(() => false));
}

/** Makes a passkey from creation options (JSON); resolves to the RegistrationResponseJSON. */
export async function createPasskey(options) {
  try {
    return toJSON(await navigator.credentials.create({ publicKey: creationOptions(options) }));
  } catch (error) {
    throw explain(error);
  }
}

/** Asks for a passkey with request options (JSON); resolves to the AuthenticationResponseJSON. */
export async function getPasskey(options, { mediation, signal } = {}) {
  try {
    return toJSON(await navigator.credentials.get({ publicKey: requestOptions(options), ...(mediation ? { mediation } : {}), ...(signal ? { signal } : {}) }));
  } catch (error) {
    throw explain(error);
  }
}
