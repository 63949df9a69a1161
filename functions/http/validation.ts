import type * as v from 'valibot';
import type { Refusal } from '#core/refusal.ts';
import { refuse } from '#core/refusals/index.ts';

type Issue = v.BaseIssue<unknown>;

/** The dotted path of the offending field, or `body` when the body itself is wrong. */
export const fieldName = (issue: Issue): string =>
  issue.path?.map((item) => String(item.key)).join('.') || 'body';

const isUnknownField = (issue: Issue): boolean =>
  issue.type === 'strict_object' && issue.expected === 'never';

export const issueCode = (issue: Issue): 'unknown_field' | 'invalid_field' | 'invalid_body' => {
  if (isUnknownField(issue)) return 'unknown_field';
  return (issue.path?.length ?? 0) > 0 ? 'invalid_field' : 'invalid_body';
};

/** A message that says which field is wrong and what to send instead. */
export const describeIssue = (issue: Issue): string => {
  const field = fieldName(issue);
  if (issue.received === 'undefined' && issue.path?.length) return `Field "${field}" is required.`;
  // Checks such as integer() name no expected value; their message says what is wanted.
  const expected = issue.expected ?? issue.message;
  return `Field "${field}" is invalid: expected ${expected}, received ${issue.received}.`;
};

/** The refusal of a body its schema does not take: the first issue, its field, and what to fix. */
export const issueRefusal = (issue: Issue): Refusal => {
  const field = fieldName(issue);
  const code = issueCode(issue);
  if (code === 'unknown_field') return refuse(code, { field }, { field });
  return refuse(code, { what: describeIssue(issue) }, { field });
};

/** The optional Idempotency-Key header: 1 to 255 visible ASCII characters (400 otherwise). */
export const idempotencyKeyOf = (headers: Record<string, string | undefined>): string | undefined => {
  const key = headers['idempotency-key'];
  if (key !== undefined && !/^[\x21-\x7e]{1,255}$/.test(key)) throw refuse('invalid_idempotency_key');
  return key;
};
