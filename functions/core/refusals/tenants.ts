import { SLUG_MAX_LENGTH, SLUG_MIN_LENGTH } from '../slug.ts';
import { catalog } from './catalog.ts';

/** The refusals of tenants, their users and slugs: each code once, with its kind and its words. */
export const tenantsRefusals = catalog({
  /**
   * No such tenant: the session's own no longer exists, or (an operator's request, `slug`) no
   * tenant has the slug named.
   */
  tenant_not_found: {
    kind: 'not_found',
    words: (facts: { slug?: string }) =>
      facts.slug === undefined
        ? 'The tenant of this session no longer exists.'
        : `No tenant has the slug "${facts.slug}".`,
  },
  user_not_found: { kind: 'not_found', words: 'The user of this session no longer exists.' },
  /** `?account=` names no account of the caller's. */
  account_not_found: {
    kind: 'not_found',
    field: 'account',
    words: 'You have no account with this slug: leave `account` out for your current one.',
  },
  /** The tenant's slug is locked to another value, for good. */
  slug_locked: {
    kind: 'conflict',
    words: (facts: { current: string }) =>
      `This tenant's slug is "${facts.current}" and is permanent; it cannot be changed.`,
  },
  /** Another tenant holds the slug, or (`former: true`) the person's own former account keeps it. */
  slug_taken: {
    kind: 'conflict',
    words: (facts: { slug: string; former: boolean }) =>
      facts.former
        ? `The slug "${facts.slug}" stays with your former account for good; choose another for the new one.`
        : `The slug "${facts.slug}" belongs to another tenant; choose another.`,
  },
  /** A new account cannot start yet: `text` is the account's own words about when it can (core/returning.ts). */
  new_account_not_yet: { kind: 'conflict', words: (facts: { text: string }) => facts.text },
  /** The person already started a new account, with another slug (`current`) or none yet. */
  new_account_exists: {
    kind: 'conflict',
    words: (facts: { current: string | null }) =>
      `You already started a new account${facts.current ? ` with the slug "${facts.current}"` : ''}: sign in again to use it.`,
  },
  // Why a slug is not acceptable (functions/core/slug.ts, slugProblem).
  slug_too_short: {
    kind: 'invalid',
    field: 'slug',
    words: `The slug must have at least ${SLUG_MIN_LENGTH} characters.`,
  },
  slug_too_long: {
    kind: 'invalid',
    field: 'slug',
    words: `The slug must have at most ${SLUG_MAX_LENGTH} characters.`,
  },
  slug_charset: {
    kind: 'invalid',
    field: 'slug',
    words: 'The slug may contain only lowercase letters a-z, digits and "-".',
  },
  slug_start: { kind: 'invalid', field: 'slug', words: 'The slug must start with a letter.' },
  slug_end: { kind: 'invalid', field: 'slug', words: 'The slug must not end with "-".' },
  slug_hyphens: {
    kind: 'invalid',
    field: 'slug',
    words:
      'The slug must not have "--" as its third and fourth characters (reserved for encoded names such as "xn--"); remove or move a hyphen.',
  },
  slug_reserved: {
    kind: 'invalid',
    field: 'slug',
    words: (facts: { slug: string }) => `"${facts.slug}" is reserved; choose another slug.`,
  },
});
