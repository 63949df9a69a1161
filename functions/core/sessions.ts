/**
 * Session rules. A session is valid until its expiry; the expiry is enforced here, in code,
 * because DynamoDB TTL only cleans up (and never runs on DynamoDB Local).
 */

/** Fixed lifetime of a session from its creation (see docs/decisions.md). */
export const SESSION_LIFETIME_SECONDS = 7 * 24 * 60 * 60;

/** Tokens carry at least 256 bits of randomness. */
export const SESSION_TOKEN_BYTES = 32;

export const sessionExpiry = (createdAt: Date): Date =>
  new Date(createdAt.getTime() + SESSION_LIFETIME_SECONDS * 1000);

/**
 * How long the session record is kept after its expiry before DynamoDB TTL may delete it: while it
 * is kept, the token is still recognised and answered `expired_session` (sign in again) rather
 * than `invalid_session`. TTL deletes within days of the time, never before it.
 */
export const SESSION_RECORD_RETENTION_SECONDS = 30 * 24 * 60 * 60;

/** The DynamoDB TTL (epoch seconds) of a session record: its expiry plus the retention above. */
export const sessionRecordTtl = (expiresAt: Date): number =>
  Math.floor(expiresAt.getTime() / 1000) + SESSION_RECORD_RETENTION_SECONDS;

export const isSessionLive = (
  session: { expiresAt: string; revokedAt?: string | undefined },
  now: Date,
): boolean => session.revokedAt === undefined && now.getTime() < Date.parse(session.expiresAt);

export const ROLES = ['administrator', 'member'] as const;
export type Role = (typeof ROLES)[number];
