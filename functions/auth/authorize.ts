import { hashSessionToken } from '#core/session-token.ts';
import { isSessionLive, type Role } from '#core/sessions.ts';
import { clock } from '#ports/clock.ts';
import { logger } from '#ports/logger.ts';
import { findDispatcherCredential } from '#store/dispatcher.ts';
import { getSession } from '#store/sessions.ts';
import { getMembership } from '#store/users.ts';

/**
 * Who a presented token is, for the session authorizer (functions/http/authorizer.ts): a Stack's
 * Dispatcher, or a person in a tenant with a role. Reads only (its function may read, never write).
 */

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
