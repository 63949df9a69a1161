import { refuse } from '../../../functions/core/refusals/index.ts';

/** Refuses a query parameter the route does not know (400 `unknown_field`), naming the first one. */
export const refuseUnknownQuery = (
  query: Record<string, string | undefined>,
  known: readonly string[],
): void => {
  const unknown = Object.keys(query).find((name) => !known.includes(name));
  if (unknown) throw refuse('unknown_field', { field: unknown, in: 'query' }, { field: unknown });
};
