/**
 * The tenant slug (spec §1, §2): chosen before the first checkout, permanent once locked, and the
 * name of the Stack `<slug>.<stack_domain>`. It must be a DNS label.
 */

export const SLUG_MIN_LENGTH = 3;
export const SLUG_MAX_LENGTH = 40;

/** Names that would collide with our own hosts or mislead a visitor. Published in docs/decisions.md. */
export const RESERVED_SLUGS: readonly string[] = [
  'www',
  'api',
  'admin',
  'app',
  'status',
  'auth',
  'login',
  'signin',
  'billing',
  'dashboard',
  'docs',
  'help',
  'support',
  'mail',
  'email',
  'smtp',
  'ftp',
  'cdn',
  'static',
  'assets',
  'blog',
  'console',
  'control',
  'internal',
  'ops',
  'root',
  'system',
  'security',
  'stack',
  'stacks',
  'test',
  'staging',
  'dev',
  'localhost',
];

export type SlugProblem = {
  code:
    | 'slug_too_short'
    | 'slug_too_long'
    | 'slug_charset'
    | 'slug_start'
    | 'slug_end'
    | 'slug_hyphens'
    | 'slug_reserved';
};

/** Why a slug is not acceptable (its code; the words are in the tenants' refusal catalog), or undefined when it is. */
export const slugProblem = (slug: string): SlugProblem | undefined => {
  if (slug.length < SLUG_MIN_LENGTH) return { code: 'slug_too_short' };
  if (slug.length > SLUG_MAX_LENGTH) return { code: 'slug_too_long' };
  if (!/^[a-z0-9-]+$/.test(slug)) return { code: 'slug_charset' };
  if (!/^[a-z]/.test(slug)) return { code: 'slug_start' };
  if (slug.endsWith('-')) return { code: 'slug_end' };
  // "xn--" names are punycode (an internationalised name that can look like another one), and
  // DNS keeps "--" in the third and fourth characters for such encodings (RFC 5891 §4.2.3.1).
  if (slug.slice(2, 4) === '--') return { code: 'slug_hyphens' };
  if (RESERVED_SLUGS.includes(slug)) return { code: 'slug_reserved' };
  return undefined;
};

export const stackName = (slug: string, stackDomain: string): string => `${slug}.${stackDomain}`;

/**
 * What locking `requested` means for a tenant whose slug is `current`: a first lock, an idempotent
 * repeat, or a refusal because the tenant's slug is permanent.
 */
export const slugLockIntent = (
  current: string | null,
  requested: string,
): 'lock' | 'already_locked_same' | 'locked_other' => {
  if (current === null) return 'lock';
  return current === requested ? 'already_locked_same' : 'locked_other';
};
