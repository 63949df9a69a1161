import { createPublicKey, createVerify } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { clock } from '../../functions/ports/clock.ts';
import { config } from '../../functions/ports/config.ts';
import { EXPORTS_PREFIX, openArchive } from '../../functions/ports/export-storage.ts';
import { secretValue } from '../../functions/ports/secrets.ts';

/**
 * The local stand-in for the console's CloudFront behaviour `/exports/*` (EXPORTS_DOWNLOAD_BASE_URL
 * is `<api>/_local`, so a URL's path is `/_local/<object key>`): it checks a signed
 * download URL as CloudFront checks it (canned policy: the resource and its expiry, signed with
 * the key pair named by `Key-Pair-Id`; expiry on the local Clock) and streams the archive from the
 * S3 stand-in, never holding it in memory. Served outside the API adapter (which buffers bodies).
 */
export const EXPORT_DOWNLOAD_PATH = '/_local/exports/';

const RANDOM_PART = /^[A-Za-z0-9_-]{43}$/;

/** CloudFront's URL-safe base64 back to plain base64. */
const cloudFrontBase64 = (value: string): string =>
  value.replace(/-/g, '+').replace(/_/g, '=').replace(/~/g, '/');

const refuse = (response: ServerResponse, status: number, code: string, message: string): void => {
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { code, message } }));
};

/** Is this a request the local download route serves? */
export const isExportDownload = (request: IncomingMessage): boolean =>
  (request.method === 'GET' || request.method === 'HEAD') &&
  (request.url ?? '').startsWith(EXPORT_DOWNLOAD_PATH);

/** Checks the signature, then streams the archive; a failure is answered (or ends the stream), never thrown. */
export const serveExportDownload = (request: IncomingMessage, response: ServerResponse): Promise<void> =>
  download(request, response).catch((error: unknown) => {
    console.error('local export download failed', error);
    if (!response.headersSent) refuse(response, 500, 'internal_error', 'The archive could not be read.');
    else response.destroy();
  });

const download = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const random = url.pathname.slice(EXPORT_DOWNLOAD_PATH.length);
  if (!RANDOM_PART.test(random)) return refuse(response, 404, 'not_found', 'No such archive.');
  const key = `${EXPORTS_PREFIX}${random}`;
  const expires = Number(url.searchParams.get('Expires'));
  const signature = url.searchParams.get('Signature') ?? '';
  const keyPairId = url.searchParams.get('Key-Pair-Id');
  const algorithm = url.searchParams.get('Hash-Algorithm') === 'SHA256' ? 'RSA-SHA256' : 'RSA-SHA1';
  const resource = `${config.exportsDownloadBaseUrl().replace(/\/+$/, '')}/${key}`;
  const policy = JSON.stringify({
    Statement: [{ Resource: resource, Condition: { DateLessThan: { 'AWS:EpochTime': expires } } }],
  });
  const publicKey = createPublicKey(await secretValue('EXPORTS_SIGNING_KEY'));
  const signed =
    keyPairId === config.exportsSigningKeyPairId() &&
    Number.isInteger(expires) &&
    createVerify(algorithm).update(policy).verify(publicKey, cloudFrontBase64(signature), 'base64');
  if (!signed) return refuse(response, 403, 'access_denied', 'The download URL is not validly signed.');
  if (clock().now().getTime() >= expires * 1000)
    return refuse(response, 403, 'access_denied', 'The download URL has expired: ask for a new one.');
  let archive: Awaited<ReturnType<typeof openArchive>>;
  try {
    archive = await openArchive(key);
  } catch (error) {
    if ((error as Error).name === 'NoSuchKey') return refuse(response, 404, 'not_found', 'No such archive.');
    throw error;
  }
  response.writeHead(200, {
    'content-type': 'application/x-tar',
    'content-length': String(archive.size),
    'content-disposition': 'attachment; filename="export.tar"',
    'cache-control': 'private, no-store',
  });
  if (request.method === 'HEAD') {
    archive.body.destroy();
    response.end();
    return;
  }
  await pipeline(archive.body, response);
};
