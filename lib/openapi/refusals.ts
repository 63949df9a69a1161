/**
 * The refusals the API can answer, with their status and words, as the OpenAPI generator
 * (lib/openapi/generate.ts) reads them: the refusal catalogs (functions/core/refusals/), each
 * code's status chosen from its kind by the HTTP edge's table (functions/http/refusal-status.ts),
 * its words with `…` for each fact they name.
 */
import type { RefusalEntry as CatalogEntry } from '#core/refusals/catalog.ts';
import { REFUSALS } from '#core/refusals/index.ts';
import { STATUS_OF_KIND } from '#http/refusal-status.ts';

export interface RefusalEntry {
  code: string;
  /** The HTTP status it is answered with. */
  status: number;
  /** Its words, `…` where the message names a fact of the request. */
  words: string;
}

/** Any fact a catalog's words name, as the document shows it: `…`. */
const ANY_FACTS = new Proxy({}, { get: () => '…' });

/** A catalog entry's words, with `…` for each fact they name. */
const catalogWords = (entry: CatalogEntry<unknown>): string =>
  entry.shown ?? (typeof entry.words === 'string' ? entry.words : entry.words(ANY_FACTS));

let cached: Map<string, RefusalEntry> | undefined;

/** Every refusal code the API answers, by code. */
export const refusalCatalog = (): Map<string, RefusalEntry> => {
  cached ??= new Map(
    (Object.entries(REFUSALS) as [string, CatalogEntry<unknown>][]).map(([code, entry]) => [
      code,
      { code, status: STATUS_OF_KIND[entry.kind], words: catalogWords(entry) },
    ]),
  );
  return cached;
};
