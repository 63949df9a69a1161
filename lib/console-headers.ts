/**
 * The headers every file of the tenant console (lib/console/) is served with: by `npm start`
 * (lib/local/server.ts) and, in the cloud, by the console's CloudFront distribution (its response
 * headers policy, and the objects' Cache-Control; lib/infra/constructs/console.ts). One source, so the
 * two cannot drift. No runtime imports: the local server loads it without aws-cdk-lib.
 */

/** No inline script or style; the API and the console share this origin. */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/** The security headers, by (lower-case) name. */
export const CONSOLE_SECURITY_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
} as const;

/**
 * HSTS on every answer of the console's site (its files, the API through it, export downloads):
 * two years, subdomains included, no preload (a preload listing outlives the stack). Only the
 * CloudFront distribution sends it: browsers ignore it over `npm start`'s plain HTTP.
 */
export const STRICT_TRANSPORT_SECURITY = { maxAgeSeconds: 63_072_000, includeSubdomains: true } as const;

/**
 * The security headers of the site's API and download answers (JSON, redirects, archives): nothing
 * in them may load or be framed.
 */
export const API_SECURITY_HEADERS = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
} as const;

/** The files are small and change with each deploy: browsers revalidate every time. */
export const CONSOLE_CACHE_CONTROL = 'no-cache';

/**
 * The API reference page (/docs: lib/reference, Scalar's bundled script over docs/api/openapi.json):
 * scripts from the site only, as the console; Scalar sets its styles inline, and nothing else loads.
 */
export const REFERENCE_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
} as const;
