import type { RefusalKind } from './refusals/kinds.ts';

/**
 * A refused request, as the use cases say it: its kind (the HTTP edge chooses the status from it,
 * functions/http/refusal-status.ts), a stable code, a message that says what to do (in the words of
 * the console; an API call named in parentheses in it goes to `apiHint` instead), and the extra
 * top-level fields the spec names (e.g. `reason`, `availablePlans`). Use cases, Step Functions
 * tasks and ops commands throw it without depending on the HTTP layer, which renders it.
 */
/** An API call named in a message, in parentheses: `(DELETE /v1/stacks/{stackId}/projects/{projectId})`. */
const API_HINT = /\s*\(((?:GET|POST|PUT|PATCH|DELETE) \/[^)]*)\)/g;

/**
 * A message and the API calls it names, apart: the message in words a person reads in the console
 * (it names the control to use), the calls for developers (the error body's `apiHint`).
 */
export const splitApiHint = (text: string): { message: string; apiHint: string | undefined } => {
  const hints = [...text.matchAll(API_HINT)].map((match) => match[1] ?? '');
  return { message: text.replace(API_HINT, ''), apiHint: hints.length ? hints.join('; ') : undefined };
};

export class Refusal extends Error {
  readonly kind: RefusalKind;
  readonly code: string;
  readonly field: string | undefined;
  readonly extra: Record<string, unknown>;
  /** The API calls the refusal's text named (`POST /v1/billing/portal`), kept apart from its message. */
  readonly apiHint: string | undefined;

  constructor(
    kind: RefusalKind,
    code: string,
    text: string,
    options: { field?: string; extra?: Record<string, unknown> } = {},
  ) {
    const { message, apiHint } = splitApiHint(text);
    super(message);
    this.name = 'Refusal';
    this.kind = kind;
    this.code = code;
    this.field = options.field;
    this.extra = options.extra ?? {};
    this.apiHint = apiHint;
  }
}
