import { hashSessionToken } from '#core/session-token.ts';
import type { Role } from '#core/sessions.ts';
import { isSessionLive } from '#core/sessions.ts';
import { oauthStateExpiry } from '#core/sign-in.ts';
import { clock } from '#ports/clock.ts';
import { logger } from '#ports/logger.ts';
import { findDispatcherCredential } from '#store/dispatcher.ts';
import { putOAuthState } from '#store/oauth-states.ts';
import { getSession, revokeSession } from '#store/sessions.ts';
import { getMembership } from '#store/users.ts';

/**
 * A person's sessions and a Stack's Dispatcher credential, as the entry points need them: a
 * sign-in started (its one-time state kept), a session revoked, and who a presented token is (for
 * the authorizer, functions/http/authorizer.ts).
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

/** The Stack a Dispatcher credential belongs to, while it is not retired; undefined otherwise. */
export const dispatcherOfCredential = async (
  token: string,
): Promise<{ tenantId: string; stackId: string } | undefined> => {
  const credential = await findDispatcherCredential(hashSessionToken(token));
  if (
    !credential ||
    (credential.retiresAt !== undefined && Date.parse(credential.retiresAt) <= clock().now().getTime())
  )
    return undefined;
  return { tenantId: credential.tenantId, stackId: credential.stackId };
};

/**
 * The person a well-formed session token signs in (tenant, user, role), or why it signs in nobody:
 * unknown or revoked, expired, or of a membership that is gone or former.
 */
export const personOfSession = async (
  token: string,
): Promise<{ tenantId: string; userId: string; role: Role } | 'invalid_session' | 'expired_session'> => {
  const session = await getSession(hashSessionToken(token));
  if (!session || session.revokedAt !== undefined) return 'invalid_session';
  if (!isSessionLive(session, clock().now())) return 'expired_session';

  const membership = await getMembership(session.tenantId, session.userId);
  if (!membership) {
    logger.warn('session of a user without membership', { userId: session.userId });
    return 'invalid_session';
  }
  // The person started a new account since this session began (in another browser): a sign-in
  // opens the new one; the old account's billing is read from there (?account=<slug>).
  if (membership.formerAt !== undefined) return 'invalid_session';
  return { tenantId: session.tenantId, userId: session.userId, role: membership.role };
};
