import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESERVED_SLUGS, slugLockIntent, slugProblem, stackName } from '#core/slug.ts';

describe('the slug is a DNS label', () => {
  it.each(['abc', 'acme', 'acme-corp', 'a1b2', 'team-42-x', 'a-b', 'abc--d', 'a--b', `a${'b'.repeat(39)}`])(
    'accepts %s',
    (slug) => {
      expect(slugProblem(slug)).toBeUndefined();
    },
  );

  it.each([
    ['ab', 'slug_too_short'],
    [`a${'b'.repeat(40)}`, 'slug_too_long'],
    ['Acme', 'slug_charset'],
    ['acme_corp', 'slug_charset'],
    ['acme.corp', 'slug_charset'],
    ['äcme', 'slug_charset'],
    ['1acme', 'slug_start'],
    ['-acme', 'slug_start'],
    ['acme-', 'slug_end'],
    ['xn--80ak6aa92e', 'slug_hyphens'],
    ['xn--mnchen-3ya', 'slug_hyphens'],
    ['ab--cd', 'slug_hyphens'],
    ['zz---', 'slug_end'],
    ['zz--9', 'slug_hyphens'],
  ])('refuses %s (%s)', (slug, code) => {
    expect(slugProblem(slug)?.code).toBe(code);
  });

  it('refuses every reserved name', () => {
    for (const reserved of ['www', 'api', 'admin', 'app', 'status'])
      expect(RESERVED_SLUGS).toContain(reserved);
    for (const reserved of RESERVED_SLUGS) expect(slugProblem(reserved)?.code).toBe('slug_reserved');
  });

  it('every accepted slug is a valid hostname label', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'abz09-_A.'), minLength: 0, maxLength: 45 }),
        (slug) => {
          if (slugProblem(slug) === undefined) {
            expect(slug).toMatch(/^[a-z](?:[a-z0-9-]{1,38}[a-z0-9])$/);
            expect(slug.slice(2, 4)).not.toBe('--');
            expect(RESERVED_SLUGS).not.toContain(slug);
          }
        },
      ),
    );
  });

  it('names the Stack <slug>.<stack_domain>', () => {
    expect(stackName('acme', 'stacks.example.com')).toBe('acme.stacks.example.com');
  });
});

describe('the slug is permanent once locked', () => {
  it('a tenant without a slug locks one', () => {
    expect(slugLockIntent(null, 'acme')).toBe('lock');
  });
  it('the same slug again is an idempotent repeat', () => {
    expect(slugLockIntent('acme', 'acme')).toBe('already_locked_same');
  });
  it('another slug is refused', () => {
    expect(slugLockIntent('acme', 'other')).toBe('locked_other');
  });
});
