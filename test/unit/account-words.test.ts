import { describe, expect, it } from 'vitest';
import { refuse } from '#core/refusals/index.ts';
import { SESSION_LIFETIME_SECONDS, sessionExpiry } from '#core/sessions.ts';
import { SLUG_MAX_LENGTH, SLUG_MIN_LENGTH, slugProblem } from '#core/slug.ts';

// What an account's refusals say, and the session lifetime as docs/decisions.md states it.

describe('each slug refusal says how to fix it', () => {
  it.each([
    ['ab', `The slug must have at least ${SLUG_MIN_LENGTH} characters.`],
    [`a${'b'.repeat(SLUG_MAX_LENGTH)}`, `The slug must have at most ${SLUG_MAX_LENGTH} characters.`],
    ['Acme', 'The slug may contain only lowercase letters a-z, digits and "-".'],
    ['1acme', 'The slug must start with a letter.'],
    ['acme-', 'The slug must not end with "-".'],
    [
      'xn--abc',
      'The slug must not have "--" as its third and fourth characters (reserved for encoded names such as "xn--"); remove or move a hyphen.',
    ],
    ['admin', '"admin" is reserved; choose another slug.'],
  ])('%s', (slug, message) => {
    const problem = slugProblem(slug);
    expect(problem && refuse(problem.code, { slug })).toMatchObject({
      message,
      field: 'slug',
      kind: 'invalid',
    });
  });
});

describe('a session', () => {
  it('lasts seven days from its creation', () => {
    expect(SESSION_LIFETIME_SECONDS).toBe(604_800);
    expect(sessionExpiry(new Date('2026-01-01T00:00:00.000Z')).toISOString()).toBe(
      '2026-01-08T00:00:00.000Z',
    );
  });
});
