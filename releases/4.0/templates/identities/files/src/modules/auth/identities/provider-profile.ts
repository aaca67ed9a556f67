/** Who signed in at a provider or hosted service, as the provider reported it. */
export interface ProviderProfile {
  /** The module id: github, google, clerk… */
  provider: string;
  /** The provider's stable id of the person (never an email). */
  providerAccountId: string;
  type: 'oauth' | 'oidc' | 'hosted';
  /** Lowercased, or null when the provider gave none (or an address that is not one plain address). */
  email: string | null;
  /** True only when the provider's own trustworthy signal says so. */
  emailVerified: boolean;
  name: string | null;
  image: string | null;
}
