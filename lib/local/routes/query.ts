import { Refusal } from '../../../functions/core/refusal.ts';

/** Refuses a query parameter the route does not know (400 `unknown_field`), naming the first one. */
export const refuseUnknownQuery = (
  query: Record<string, string | undefined>,
  known: readonly string[],
): void => {
  const unknown = Object.keys(query).find((name) => !known.includes(name));
  if (unknown)
    throw new Refusal('invalid', 'unknown_field', `Unknown query parameter "${unknown}": remove it.`, {
      field: unknown,
    });
};
