import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localCredentials } from './dynamodb.ts';

/**
 * The S3 stand-in for the local run and the tests: s3rver (pinned), serving the exports bucket
 * from a folder, so the control plane and the reference Dispatcher make the same S3 calls
 * (multipart upload, presigned part URLs, complete, head, get) as in AWS.
 *
 * s3rver checks that a request names a known access key but does not verify V4 signatures; the
 * local cloud's credentials are registered with it. Clients must not send aws-chunked bodies
 * (functions/ports/export-storage.ts: checksums only when required), or s3rver would store the
 * chunk framing inside the object.
 */

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance;
interface S3rverAccount {
  createKeyPair(accessKeyId: string, secretAccessKey: string): void;
}

const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as S3rverClass;
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account.js') as { DUMMY_ACCOUNT: S3rverAccount };

/** The local exports bucket. */
export const LOCAL_EXPORTS_BUCKET = 'stack-control-plane-exports';
/** The local signing key's id (CloudFront's `Key-Pair-Id` in the cloud). */
export const LOCAL_SIGNING_KEY_PAIR_ID = 'LOCAL';

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  stop(): Promise<void>;
}

export interface LocalS3Options {
  /** Keeps the objects in `<dataDirectory>/s3`; a temporary folder (removed at stop) when absent. */
  dataDirectory?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
}

export const startLocalS3 = async (options: LocalS3Options = {}): Promise<LocalS3> => {
  DUMMY_ACCOUNT.createKeyPair(localCredentials.accessKeyId, localCredentials.secretAccessKey);
  const temporary = options.dataDirectory === undefined;
  const directory = options.dataDirectory
    ? path.join(options.dataDirectory, 's3')
    : mkdtempSync(path.join(tmpdir(), 'stack-s3-'));
  mkdirSync(directory, { recursive: true });
  const server = new S3rver({
    address: '127.0.0.1',
    port: options.port ?? 0,
    silent: true,
    directory,
    vhostBuckets: false,
    configureBuckets: [{ name: LOCAL_EXPORTS_BUCKET }],
  });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket: LOCAL_EXPORTS_BUCKET,
    stop: async () => {
      server.httpServer?.closeAllConnections();
      await server.close();
      if (temporary) rmSync(directory, { recursive: true, force: true });
    },
  };
};

/**
 * The local key that signs download URLs (what the stack's CloudFront key pair is in the cloud):
 * a new RSA key per local cloud; a URL lives five minutes, so none outlives a restart for long.
 */
export const localSigningKey = (): string =>
  generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
