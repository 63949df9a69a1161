import { expect } from 'vitest';
import { Refusal } from '#core/refusal.ts';

/** `value` is one of our refusals with these fields (status, code, words, extra), as a tenant reads it. */
export const expectRefusal = (
  value: unknown,
  fields: { status: number; code: string; message?: string; extra?: Record<string, unknown> },
): void => {
  expect(value).toBeInstanceOf(Refusal);
  expect(value).toMatchObject(fields);
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
