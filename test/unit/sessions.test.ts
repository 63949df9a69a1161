import { describe, expect, it } from 'vitest';
import { hashSessionToken, isWellFormedToken, newSessionToken } from '#core/session-token.ts';
import {
  isSessionLive,
  SESSION_LIFETIME_SECONDS,
  SESSION_RECORD_RETENTION_SECONDS,
  sessionExpiry,
  sessionRecordTtl,
} from '#core/sessions.ts';
import { EDGE_COOKIE_SCHEME, findSessionToken, SESSION_COOKIE, sessionCookie } from '#http/session-token.ts';

describe('session expiry is enforced in code', () => {
  const createdAt = new Date('2026-01-01T00:00:00Z');
  const session = { expiresAt: sessionExpiry(createdAt).toISOString() };

  it('a session expires a fixed lifetime after its creation', () => {
    expect(sessionExpiry(createdAt).getTime() - createdAt.getTime()).toBe(SESSION_LIFETIME_SECONDS * 1000);
  });

  it('is live until the last millisecond before its expiry', () => {
    expect(isSessionLive(session, new Date(Date.parse(session.expiresAt) - 1))).toBe(true);
  });

  it('is dead at and after its expiry', () => {
    expect(isSessionLive(session, new Date(session.expiresAt))).toBe(false);
    expect(isSessionLive(session, new Date(Date.parse(session.expiresAt) + 86_400_000))).toBe(false);
  });

  it('a revoked session is dead at once', () => {
    expect(isSessionLive({ ...session, revokedAt: createdAt.toISOString() }, createdAt)).toBe(false);
  });
});

describe('an expired session record outlives its expiry (so the cloud still says expired_session)', () => {
  const expiresAt = new Date('2026-01-08T00:00:00Z');

  it('is kept at least 30 days past its expiry before TTL may delete it', () => {
    expect(SESSION_RECORD_RETENTION_SECONDS).toBeGreaterThanOrEqual(30 * 86_400);
    expect(sessionRecordTtl(expiresAt)).toBe(Date.parse('2026-02-07T00:00:00Z') / 1000);
  });
});

describe('session tokens', () => {
  it('carry 256 random bits, base64url, and differ every time', () => {
    const tokens = new Set(Array.from({ length: 100 }, newSessionToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) {
      expect(Buffer.from(token, 'base64url')).toHaveLength(32);
      expect(isWellFormedToken(token)).toBe(true);
    }
  });

  it('are stored only as their SHA-256', () => {
    const token = newSessionToken();
    expect(hashSessionToken(token)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashSessionToken(token)).not.toContain(token);
  });

  it('are read from the Bearer header first, then from the session cookie', () => {
    expect(findSessionToken({ authorization: 'Bearer abc' }, [`${SESSION_COOKIE}=xyz`])).toEqual({
      token: 'abc',
      via: 'bearer',
    });
    expect(findSessionToken({}, ['other=1', `${SESSION_COOKIE}=xyz`])).toEqual({
      token: 'xyz',
      via: 'cookie',
    });
    expect(findSessionToken({}, ['other=1'])).toBeUndefined();
    expect(findSessionToken({ authorization: 'Basic abc' }, [])).toBeUndefined();
  });

  it("read under the site's SessionCookie scheme as the cookie's (cookie rules apply), and first", () => {
    expect(findSessionToken({ authorization: `${EDGE_COOKIE_SCHEME} abc` }, [])).toEqual({
      token: 'abc',
      via: 'cookie',
    });
    expect(findSessionToken({ authorization: 'sessioncookie abc' }, [`${SESSION_COOKIE}=xyz`])).toEqual({
      token: 'abc',
      via: 'cookie',
    });
    expect(
      findSessionToken({ authorization: `${EDGE_COOKIE_SCHEME} ` }, [`${SESSION_COOKIE}=xyz`]),
    ).toBeUndefined();
  });

  it('the cookie is HttpOnly, Secure and SameSite=Lax', () => {
    const cookie = sessionCookie('t', new Date('2026-01-08T00:00:00Z'));
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('Secure');
    expect(cookie).toContain('SameSite=Lax');
  });
});
