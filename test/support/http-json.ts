/**
 * One JSON request to a local control plane over HTTP, as the tests' clients send it (the e2e
 * client `local-cloud.ts`, the money path's driver `money-path.ts`, the restore drill, the export
 * bench): a JSON body with its content type when there is one, the session as a bearer token when
 * there is one. Each client reads the answer's text its own way (`jsonOf`).
 */
export interface JsonRequest {
  body?: unknown;
  token?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Sends the request; the answer's status and text. */
export const sendJson = async (url: string, method: string, request: JsonRequest = {}) => {
  const response = await fetch(url, {
    method,
    headers: {
      ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
      ...request.headers,
    },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    ...(request.signal ? { signal: request.signal } : {}),
  });
  return { status: response.status, text: await response.text() };
};

/** The JSON an answer's text holds: undefined for an empty text, `otherwise` for text that is no JSON. */
// biome-ignore lint/suspicious/noExplicitAny: the API's JSON, read freely
export const jsonOf = (text: string, otherwise: unknown): any => {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return otherwise;
  }
};
