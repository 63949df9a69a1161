/**
 * The API reference page (/docs, issue 39): its files, by the path the site serves each at. One
 * list for both sites: `npm start` reads each file where it is (lib/local/server.ts), and the CDK
 * app deploys the same files under `docs/` of the console's bucket (lib/infra/constructs/console.ts),
 * where a CloudFront Function answers `/docs` and `/docs/` with the page. No runtime imports: the
 * local server and the CDK app both load it.
 */

/** Where the page is. */
export const REFERENCE_PATH = '/docs';

/** Each file of the page: the path the site answers, the repository file, its content type. */
export const REFERENCE_FILES: Record<string, { file: string; type: string }> = {
  [REFERENCE_PATH]: { file: 'lib/reference/index.html', type: 'text/html; charset=utf-8' },
  [`${REFERENCE_PATH}/reference.js`]: {
    file: 'lib/reference/reference.js',
    type: 'text/javascript; charset=utf-8',
  },
  [`${REFERENCE_PATH}/reference.css`]: {
    file: 'lib/reference/reference.css',
    type: 'text/css; charset=utf-8',
  },
  // Scalar's bundled standalone script (no outside fetch: reference.js turns off its fonts, proxy and hosted client).
  [`${REFERENCE_PATH}/scalar.js`]: {
    file: 'node_modules/@scalar/api-reference/dist/browser/standalone.js',
    type: 'text/javascript; charset=utf-8',
  },
  [`${REFERENCE_PATH}/openapi.json`]: { file: 'docs/api/openapi.json', type: 'application/json' },
};

/** Where the page's files are in the console's bucket: under `docs/`, the page itself as `docs/index.html`. */
export const REFERENCE_KEY_PREFIX = `${REFERENCE_PATH.slice(1)}/`;

/** A served path's file name under REFERENCE_KEY_PREFIX: `index.html` for the page itself. */
export const referenceFileName = (served: string): string =>
  served === REFERENCE_PATH ? 'index.html' : served.slice(`${REFERENCE_PATH}/`.length);

/**
 * The viewer-request function of the site's `/docs*` behaviour (CloudFront Functions,
 * cloudfront-js-2.0): `/docs` and `/docs/` are the page's object, as `npm start` answers them.
 */
export const REFERENCE_INDEX_FUNCTION_CODE = `function handler(event) {
  var request = event.request;
  if (request.uri === ${JSON.stringify(REFERENCE_PATH)} || request.uri === ${JSON.stringify(`${REFERENCE_PATH}/`)}) {
    request.uri = ${JSON.stringify(`/${REFERENCE_KEY_PREFIX}${referenceFileName(REFERENCE_PATH)}`)};
  }
  return request;
}
`;
