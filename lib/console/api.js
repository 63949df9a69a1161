// Calls to the public API, same origin: the session cookie authenticates them (HttpOnly).

export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {any} body
   */
  constructor(status, body) {
    // The API's errors are `{ error: { code, message, requestId }, ...extra }`.
    super(body?.error?.message ?? body?.message ?? `The API answered ${status}.`);
    this.name = 'ApiError';
    this.status = status;
    // One of the API's refusal codes: the type is the list the OpenAPI document gives (made from
    // the refusal catalogs, functions/core/refusals/), so a screen that tests for a code the API
    // never answers fails `npm run typecheck`.
    /** @type {import('../client/facts.ts').RefusalCode | undefined} */
    this.code = body?.error?.code;
    this.body = body;
  }
}

/**
 * @param {string} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
export const api = async (method, path, body) => {
  const response = await fetch(path, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = { message: text };
  }
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
};
