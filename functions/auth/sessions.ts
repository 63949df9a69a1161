import { hashSessionToken } from '#core/session-token.ts';
import { oauthStateExpiry } from '#core/sign-in.ts';
import { putOAuthState } from '#store/oauth-states.ts';
import { revokeSession } from '#store/sessions.ts';

/**
 * A person's sessions, as the sign-in and sign-out handlers need them: a sign-in started (its
 * one-time state kept), a session revoked. Who a presented token is: functions/auth/authorize.ts.
 */

/** Keeps a started sign-in's one-time `state` (hashed) with its PKCE verifier, until it expires. */
export const startSignIn = async (params: {
  state: string;
  codeVerifier: string;
  redirectUri: string;
  now: Date;
}): Promise<void> =>
  putOAuthState(hashSessionToken(params.state), {
    codeVerifier: params.codeVerifier,
    redirectUri: params.redirectUri,
    createdAt: params.now.toISOString(),
    expiresAt: oauthStateExpiry(params.now).toISOString(),
  });

/** Revokes the session of a presented token at once. */
export const signOut = async (token: string, now: Date): Promise<void> =>
  revokeSession(hashSessionToken(token), now);
