import { clientSettings, optionalUrl } from '../oauth-settings.js';

export const keycloakConfig = {
  ...clientSettings('KEYCLOAK'),
  KEYCLOAK_ISSUER: optionalUrl,
};
