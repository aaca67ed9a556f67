/** Local stand-ins for Clerk, Auth0 and Supabase speaking their real formats over HTTP; see README.md. */
export { startFakeHosted, type FakeHosted, type FakeHostedOptions, type HostedFault, type RecordedRequest } from './server.js';
export { CLERK_SESSION_TOKEN_CATEGORY, type ClerkEmailStatus, type ClerkEnv, type ClerkUserInput, type FakeClerk } from './clerk.js';
export { AUTH0_AUDIENCE, type Auth0Env, type FakeAuth0 } from './auth0.js';
export type { FakeSupabase, SupabaseEnv, SupabaseTokenOverrides, SupabaseUserInput } from './supabase.js';
export type { HostedUser } from './user.js';
export type { Host, ServiceName } from './http.js';
export type { SignMode, TokenOverrides } from './token-forgery.js';
