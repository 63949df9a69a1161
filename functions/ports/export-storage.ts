import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl as signCloudFrontUrl } from '@aws-sdk/cloudfront-signer';
import { getSignedUrl as presignS3 } from '@aws-sdk/s3-request-presigner';
import { config } from './config.ts';
import { secretValue } from './secrets.ts';
import { traced } from './tracer.ts';

/**
 * The export archives' storage port: the private bucket (S3) and the signed download URLs
 * (CloudFront, with the stack's trusted key). Locally AWS_ENDPOINT_URL_S3 points the SDK at the S3
 * stand-in (s3rver) and the download URLs at the local control plane's own route, which checks the
 * same signature CloudFront checks. Nothing here is ever shown to a tenant but the signed URL.
 */

/**
 * The S3 client. Checksums only when an operation requires them: the SDK's default adds CRC32
 * trailers in aws-chunked framing, which the stand-in stores inside the object, and a presigned
 * part URL would name a checksum the Dispatcher does not send.
 */
export const s3ClientOptions = (endpoint: string | undefined) => ({
  requestChecksumCalculation: 'WHEN_REQUIRED' as const,
  responseChecksumValidation: 'WHEN_REQUIRED' as const,
  // The stand-in serves buckets by path (no bucket subdomains on 127.0.0.1).
  forcePathStyle: true,
  ...(endpoint ? { endpoint } : {}),
});

let cached: { endpoint: string | undefined; client: S3Client } | undefined;
const s3 = (): S3Client => {
  const endpoint = config.s3Endpoint();
  if (!cached || cached.endpoint !== endpoint) {
    cached?.client.destroy();
    cached = { endpoint, client: traced(new S3Client(s3ClientOptions(endpoint))) };
  }
  return cached.client;
};

/**
 * A new archive's object key: `exports/` (the console's CloudFront path, which CloudFront passes
 * to the bucket as is) and 256 random bits, so the key says nothing and cannot be guessed.
 */
export const newObjectKey = (): string => `${EXPORTS_PREFIX}${randomBytes(32).toString('base64url')}`;

/** Every archive's key starts so; the distribution's `/exports/*` behaviour reads only these. */
export const EXPORTS_PREFIX = 'exports/';

/** Starts the multipart upload the Dispatcher's parts go to; answers its id. */
export const createUpload = async (objectKey: string): Promise<string> => {
  const { UploadId } = await s3().send(
    new CreateMultipartUploadCommand({
      Bucket: config.exportsBucket(),
      Key: objectKey,
      ContentType: 'application/x-tar',
    }),
  );
  if (!UploadId) throw new Error('S3 answered no UploadId');
  return UploadId;
};

/** Presigned URLs for the Dispatcher to PUT parts with (no credentials of ours leave the control plane). */
export const partUploadUrls = async (
  objectKey: string,
  uploadId: string,
  partNumbers: readonly number[],
  expiresInSeconds: number,
): Promise<{ partNumber: number; url: string }[]> =>
  Promise.all(
    partNumbers.map(async (partNumber) => ({
      partNumber,
      url: await presignS3(
        s3(),
        new UploadPartCommand({
          Bucket: config.exportsBucket(),
          Key: objectKey,
          UploadId: uploadId,
          PartNumber: partNumber,
        }),
        { expiresIn: expiresInSeconds },
      ),
    })),
  );

/** S3 refused the completion (a part missing or not as the Dispatcher said). */
export class UploadRefused extends Error {}

/** Completes the upload from the parts the Dispatcher uploaded; answers the archive's size. */
export const completeUpload = async (
  objectKey: string,
  uploadId: string,
  parts: readonly { partNumber: number; etag: string }[],
): Promise<number> => {
  try {
    await s3().send(
      new CompleteMultipartUploadCommand({
        Bucket: config.exportsBucket(),
        Key: objectKey,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })) },
      }),
    );
  } catch (error) {
    const name = (error as Error).name;
    if (['InvalidPart', 'InvalidPartOrder', 'EntityTooSmall', 'NoSuchUpload', 'MalformedXML'].includes(name))
      throw new UploadRefused(`S3 refused to complete the upload: ${name}`);
    throw error;
  }
  const { ContentLength } = await s3().send(
    new HeadObjectCommand({ Bucket: config.exportsBucket(), Key: objectKey }),
  );
  return ContentLength ?? 0;
};

/** The archive as a stream (the local download route; in the cloud CloudFront reads the bucket). */
export const openArchive = async (objectKey: string): Promise<{ body: Readable; size: number }> => {
  const { Body, ContentLength } = await s3().send(
    new GetObjectCommand({ Bucket: config.exportsBucket(), Key: objectKey }),
  );
  if (!Body) throw new Error('S3 answered no body');
  return { body: Body as Readable, size: ContentLength ?? 0 };
};

/**
 * A signed download URL on the console's own site: `<EXPORTS_DOWNLOAD_BASE_URL>/<object key>`
 * (`https://<console domain>/exports/<random>`) with CloudFront's canned policy (expiry), signed
 * with the stack's private key (SHA-256).
 */
export const signedDownloadUrl = async (objectKey: string, expiresAt: Date): Promise<string> =>
  signCloudFrontUrl({
    url: `${config.exportsDownloadBaseUrl().replace(/\/+$/, '')}/${objectKey}`,
    keyPairId: config.exportsSigningKeyPairId(),
    privateKey: await secretValue('EXPORTS_SIGNING_KEY'),
    dateLessThan: expiresAt.toISOString(),
    algorithm: 'SHA256',
  });
