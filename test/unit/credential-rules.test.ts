import { describe, expect, it } from 'vitest';
import {
  AUTH_FILE_MAX_BYTES,
  authFileProblem,
  CONSENT_TEXT,
  CONSENT_TEXT_VERSION,
  CREDENTIAL_KINDS,
  CREDENTIAL_NAME_RULE,
  isMetered,
  pickRouted,
  provisionRefusal,
  RESERVED_CREDENTIAL_NAMES,
  resolveProfile,
} from '#core/credentials.ts';

// The Credential rules at the edges the other unit tests leave open.

describe('kinds', () => {
  it('only api_key usage is metered by the provider', () => {
    expect(CREDENTIAL_KINDS.filter(isMetered)).toEqual(['api_key']);
  });
});

describe('consent', () => {
  const consenting = {
    provider: 'provider-a',
    kind: 'oauth_token',
    consentGiven: true,
    materialGiven: true,
    localHostExecutor: false,
  } as const;

  it('names the current text version, or no version at all', () => {
    expect(provisionRefusal({ ...consenting, consentTextVersion: CONSENT_TEXT_VERSION })).toBeUndefined();
    expect(provisionRefusal(consenting)).toBeUndefined();
  });

  it('naming another version is refused with both versions', () => {
    expect(provisionRefusal({ ...consenting, consentTextVersion: '2020-01' })).toEqual({
      code: 'consent_version_unknown',
      given: '2020-01',
      current: CONSENT_TEXT_VERSION,
    });
  });

  it('the text is versioned by month and says whose subscription is used', () => {
    expect(CONSENT_TEXT_VERSION).toMatch(/^\d{4}-\d{2}$/);
    expect(CONSENT_TEXT).toMatch(/^I am an administrator of this account\. I agree/);
    expect(CONSENT_TEXT).toContain('my own subscription with the provider');
  });
});

describe('names', () => {
  it('the rule is said in words, and catalog is taken by the Provider catalog', () => {
    expect(CREDENTIAL_NAME_RULE).toBe(
      '1 to 63 lowercase letters, digits and hyphens, starting with a letter or a digit',
    );
    expect(RESERVED_CREDENTIAL_NAMES).toEqual(['catalog']);
  });
});

describe('an auth file', () => {
  const jsonOfBytes = (bytes: number) => {
    const head = '{"k":"';
    const tail = '"}';
    return `${head}${'x'.repeat(bytes - head.length - tail.length)}${tail}`;
  };

  it('up to the limit in bytes is accepted; one byte more is refused, saying the limit', () => {
    expect(authFileProblem(jsonOfBytes(AUTH_FILE_MAX_BYTES))).toBeUndefined();
    expect(authFileProblem(jsonOfBytes(AUTH_FILE_MAX_BYTES + 1))).toBe(
      `the auth file is larger than ${AUTH_FILE_MAX_BYTES / 1024} KB`,
    );
  });

  it('the limit counts UTF-8 bytes, not characters', () => {
    // "é" is two bytes: half as many characters reach the limit.
    const text = `{"k":"${'é'.repeat(AUTH_FILE_MAX_BYTES / 2)}"}`;
    expect(text.length).toBeLessThan(AUTH_FILE_MAX_BYTES);
    expect(authFileProblem(text)).toMatch(/larger than/);
  });

  it('must be a JSON object: not null, a number, a string or an array', () => {
    for (const text of ['null', '3', '"text"', '[{"k":1}]', 'true'])
      expect(authFileProblem(text), text).toBe('the auth file must be a JSON object');
  });
});

describe('the Runtime Profile', () => {
  it('a blank entry of the Credential falls back to the Provider default', () => {
    expect(
      resolveProfile({
        activity: 'dispatch',
        explicit: {},
        profile: { dispatch: { model: '', effort: 'high' } },
        providerDefault: { model: 'm-default', effort: 'medium' },
      }),
    ).toEqual({ model: 'm-default', effort: 'high' });
  });
});

describe('the Credential a Thread gets', () => {
  it('a route without a Fallback names only its Primary among the reasons', () => {
    const names: string[] = [];
    const picked = pickRouted({ primary: 'main' }, (name) => {
      names.push(name);
      return 'archived';
    });
    expect(picked).toEqual({
      name: undefined,
      reasons: [{ position: 'primary', name: 'main', reason: 'archived' }],
    });
    expect(names).toEqual(['main']);
  });
});
