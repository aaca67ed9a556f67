/** The service's token is not acceptable (forged, expired, for someone else): 401 INVALID_TOKEN. */
export class TokenRefused extends Error {}

/** The service could not be reached, did not answer in time or failed: 503 SERVICE_UNAVAILABLE. */
export class ServiceUnavailable extends Error {}
