import { expect } from 'vitest';
import { Refusal } from '#core/refusal.ts';
import { statusOf } from '#http/refusal-status.ts';

/**
 * `value` is one of our refusals with these fields (code, words, extra), answered with `status`
 * at the HTTP edge (from its kind), as a tenant reads it.
 */
export const expectRefusal = (
  value: unknown,
  { status, ...fields }: { status: number; code: string; message?: string; extra?: Record<string, unknown> },
): void => {
  expect(value).toBeInstanceOf(Refusal);
  expect(value).toMatchObject(fields);
  expect(statusOf(value as Refusal)).toBe(status);
};

/** An HTTP answer that refuses: its status, the error's code and words, and any other body fields. */
export const expectRefusedAnswer = (
  answer: { status: number; json: unknown },
  status: number,
  error: { code: string; message?: string },
  body: Record<string, unknown> = {},
): void => {
  expect(answer.status).toBe(status);
  expect(answer.json).toMatchObject({ error, ...body });
};
