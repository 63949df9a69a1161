import { describe, expect, it } from 'vitest';
import { isOAuthStateFresh, OAUTH_STATE_LIFETIME_SECONDS, oauthStateExpiry } from '#core/sign-in.ts';
import { readCookie } from '#http/cookies.ts';
import { pkceChallenge, randomUrlToken, wantsJson } from '#http/oauth.ts';

describe('code-host sign-in', () => {
  it('PKCE S256 matches RFC 7636 appendix B', () => {
    expect(pkceChallenge('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(
      'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    );
  });

  it('state and verifier carry 256 random bits', () => {
    expect(Buffer.from(randomUrlToken(), 'base64url')).toHaveLength(32);
    expect(randomUrlToken()).not.toBe(randomUrlToken());
  });

  it(`a started sign-in expires after ${OAUTH_STATE_LIFETIME_SECONDS / 60} minutes`, () => {
    const startedAt = new Date('2026-05-01T10:00:00Z');
    const state = { expiresAt: oauthStateExpiry(startedAt).toISOString() };
    expect(isOAuthStateFresh(state, new Date('2026-05-01T10:09:59Z'))).toBe(true);
    expect(isOAuthStateFresh(state, new Date('2026-05-01T10:10:00Z'))).toBe(false);
  });

  it('a client asking for JSON gets JSON', () => {
    expect(wantsJson({ accept: 'application/json' })).toBe(true);
    expect(wantsJson({ accept: 'text/html,application/xhtml+xml' })).toBe(false);
    expect(wantsJson({})).toBe(false);
  });

  it('reads one cookie from API Gateway’s cookie list', () => {
    expect(readCookie(['a=1', ' b = 2 '], 'b')).toBe('2');
    expect(readCookie(['a=1'], 'b')).toBeUndefined();
    expect(readCookie(undefined, 'b')).toBeUndefined();
  });
});
