import type { Refusal } from '#core/refusal.ts';
import type { RefusalKind } from '#core/refusals/kinds.ts';

/**
 * The one place a refusal's HTTP status is chosen: from its kind. Use cases never name a status;
 * the OpenAPI document (lib/openapi/refusals.ts) reads this table too.
 */
export const STATUS_OF_KIND: Record<RefusalKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  payment_required: 402,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  gone: 410,
  unsupported_media: 415,
  internal: 500,
  upstream_failed: 502,
  unavailable: 503,
};

/** The status a refusal is answered with. */
export const statusOf = (refusal: Pick<Refusal, 'kind'>): number => STATUS_OF_KIND[refusal.kind];
