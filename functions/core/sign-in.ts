/** Rules of the code-host sign-in (OAuth 2.0 authorization code with PKCE). */

/** A started sign-in must come back within this time. */
export const OAUTH_STATE_LIFETIME_SECONDS = 10 * 60;

export const oauthStateExpiry = (startedAt: Date): Date =>
  new Date(startedAt.getTime() + OAUTH_STATE_LIFETIME_SECONDS * 1000);

export const isOAuthStateFresh = (state: { expiresAt: string }, now: Date): boolean =>
  now.getTime() < Date.parse(state.expiresAt);
