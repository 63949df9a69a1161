import { Refusal } from '../refusal.ts';
import type { RefusalKind } from './kinds.ts';

/**
 * One catalog entry: a code's kind (the HTTP edge chooses the status from it) and its words, a
 * text or a function of the few facts the text names. `field` is the request field the code is
 * always about, when there is one (a raise may name another).
 */
export interface RefusalEntry<Facts = never> {
  readonly kind: RefusalKind;
  readonly words: string | ((facts: Facts) => string);
  readonly field?: string;
  /**
   * How the API reference shows the words when a fact is the whole text (`invalid_field`: each
   * field says its own sentence); otherwise the reference shows the words with `…` for each fact.
   */
  readonly shown?: string;
}

// biome-ignore lint/suspicious/noExplicitAny: a catalog holds entries of any facts
export type RefusalEntries = Record<string, RefusalEntry<any>>;

/** What a raise may add: the field it is about, and the top-level facts the spec names. */
export interface RefusalOptions {
  field?: string;
  extra?: Record<string, unknown>;
}

type FactsOf<E> = E extends { words: (facts: infer F) => string } ? F : undefined;
type RaiseArgs<E> =
  FactsOf<E> extends undefined
    ? [facts?: undefined, options?: RefusalOptions]
    : [facts: FactsOf<E>, options?: RefusalOptions];

/** Checks an area's catalog against the entry shape and keeps its literal types. */
export const catalog = <C extends RefusalEntries>(entries: C): C => entries;

/**
 * A raiser of one catalog's codes: `refuserOf(CATALOG)('stack_not_found', { stackId })` is the
 * Refusal, with the catalog's kind and words. The only place a Refusal is built from a code.
 */
export const refuserOf =
  <C extends RefusalEntries>(entries: C) =>
  <K extends keyof C & string>(code: K, ...[facts, options]: RaiseArgs<C[K]>): Refusal => {
    const entry = entries[code] as RefusalEntry<unknown>;
    const text = typeof entry.words === 'string' ? entry.words : entry.words(facts);
    const field = options?.field ?? entry.field;
    return new Refusal(entry.kind, code, text, {
      ...(field !== undefined ? { field } : {}),
      ...(options?.extra ? { extra: options.extra } : {}),
    });
  };
