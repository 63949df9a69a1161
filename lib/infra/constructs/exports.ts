import { createHash } from 'node:crypto';
import { Annotations, Duration, Stack, Validations } from 'aws-cdk-lib';
import {
  AllowedMethods,
  CachePolicy,
  type Distribution,
  KeyGroup,
  PublicKey,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct, type IConstruct } from 'constructs';
import { EXPORT_RETENTION_DAYS } from '../../../functions/core/exports.ts';
import { pinStateful, stageSecretProps } from '../stateful.ts';
import type { ConsoleSite } from './console.ts';
import { nagName } from './lambda.ts';

/**
 * A public key nobody holds the private key of: the stack deploys with it, and every download URL
 * is refused until an operator sets the context `exportsSigningPublicKey` to their own key's
 * public half and pastes the private half into the ExportsSigningKey secret (docs/runbook.md).
 */
export const PLACEHOLDER_SIGNING_PUBLIC_KEY = `-----BEGIN PUBLIC KEY-----
MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA2Xri8r/hV2Ac+o5RHxqN
svr8h+lKgCYwH2FRbIMiL3iXtsacIs4QgR2FVymexaEfcZKjvaSqEXR12U4UKDDR
MKJCm3Ny09Ig0/c4FA4QRDHGA6XsoLBVLN8HC/klHioIPsmJ/5YF4NAyfg17q+eP
6XIQeOgDLRaBjrm6p/82mQ4QiUSMgA2grZ7eWW2D8sK7GRIl53IlCkhmUHxcNbbj
TQM0Z9NElKCgCpEOsi+3NfDEWvEn1IpHYPI+tjlnXeGx0AaU235h+P311XFvyF8O
8deFIdDWBUWVi/FvAnTBQnIWEN2hAktVLw+RNZl1chu945hkGXCYHmJf/IynHjof
FQIDAQAB
-----END PUBLIC KEY-----
`;

/** What an upload route may do on the bucket's objects: create and complete uploads (and presign parts), head. */
export const UPLOAD_ACTIONS = ['s3:PutObject', 's3:GetObject'] as const;

export interface ExportArchivesProps {
  /** The console's site: its distribution serves the downloads under `/exports/*`. */
  site: ConsoleSite;
  /** The PEM public key of the download-signing key pair (its private key: the secret). */
  signingPublicKey?: string | undefined;
  /**
   * The public key signed with before the last rotation: still trusted, never signed with, so URLs
   * handed out before the private key changed keep working (context `exportsSigningPreviousPublicKey`).
   */
  previousSigningPublicKey?: string | undefined;
}

/**
 * The construct id of a public key: derived from the key itself. CloudFormation cannot change a
 * CloudFront public key's encoded key in place, so a new key is a new resource (a new logical id)
 * and a key kept across deploys keeps its resource, whether it is the current or the previous one.
 */
export const publicKeyConstructId = (pem: string): string =>
  `DownloadKey${createHash('sha256').update(pem.replace(/\s+/g, '')).digest('hex').slice(0, 12).toUpperCase()}`;

/**
 * Export archives (docs/exports.md): a private bucket (no public access, TLS only, encrypted,
 * archives expire after EXPORT_RETENTION_DAYS, unfinished uploads after a day) read only by the
 * console's CloudFront distribution through origin access control, under `/exports/*`, and only
 * with a URL signed by the trusted key group's key (its private key in Secrets Manager, read by
 * the download route alone).
 */
export class ExportArchives extends Construct {
  readonly bucket: Bucket;
  /** The console site's distribution, which serves the downloads. */
  readonly distribution: Distribution;
  /** The key URLs are signed with (its id is the download route's EXPORTS_SIGNING_KEY_PAIR_ID). */
  readonly publicKey: PublicKey;
  /** The key signed with before the last rotation, still trusted (when set). */
  readonly previousPublicKey: PublicKey | undefined;
  readonly signingKey: Secret;
  /** `https://<console domain>`: the base of every download URL (`<base>/exports/<random>`). */
  readonly downloadBaseUrl: string;

  constructor(scope: Construct, id: string, props: ExportArchivesProps) {
    super(scope, id);
    this.bucket = new Bucket(this, 'Archives', {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: BucketEncryption.S3_MANAGED,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [
        {
          id: 'expire-exports',
          expiration: Duration.days(EXPORT_RETENTION_DAYS),
          abortIncompleteMultipartUploadAfter: Duration.days(1),
        },
      ],
    });
    pinStateful(this.bucket, 'exportsBucket', { keepsData: true });
    Validations.of(this.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'Archives are written only by the upload routes (CloudTrail) and read only through the signed CloudFront route; they live 7 days.',
    });

    this.signingKey = new Secret(
      this,
      'SigningKey',
      stageSecretProps(
        this,
        'ExportsSigningKey',
        'The RSA private key (PEM) that signs export download URLs; its public half is the context exportsSigningPublicKey',
      ),
    );
    Validations.of(this.signingKey).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A CloudFront signing key is rotated by adding a new public key to the key group, not by a Lambda rotation.',
    });
    if (!props.signingPublicKey)
      // An info, not a warning: cdk-nag's report counts warnings as findings, and this is a setting.
      Annotations.of(this).addInfo(
        'No exportsSigningPublicKey in the context: a placeholder key is trusted, and every export download is refused until you set yours (docs/runbook.md).',
      );
    // The same properties whether current or previous: a key's resource never changes in place.
    const downloadKey = (pem: string) =>
      new PublicKey(this, publicKeyConstructId(pem), {
        encodedKey: pem,
        comment: 'Verifies export download URLs (the current key: the ExportsSigningKey secret)',
      });
    const current = props.signingPublicKey ?? PLACEHOLDER_SIGNING_PUBLIC_KEY;
    this.publicKey = downloadKey(current);
    const previous = props.previousSigningPublicKey;
    this.previousPublicKey =
      previous && publicKeyConstructId(previous) !== publicKeyConstructId(current)
        ? downloadKey(previous)
        : undefined;
    const keyGroup = new KeyGroup(this, 'DownloadKeys', {
      items: [this.publicKey, ...(this.previousPublicKey ? [this.previousPublicKey] : [])],
    });

    this.distribution = props.site.distribution;
    this.distribution.addBehavior(
      '/exports/*',
      // The path goes to the bucket as is: every archive's key starts with `exports/`.
      S3BucketOrigin.withOriginAccessControl(this.bucket, {
        originAccessControl: props.site.originAccessControl,
      }),
      {
        viewerProtocolPolicy: ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: CachePolicy.CACHING_DISABLED,
        // The archive's bytes as stored: what the manifest's sizes and the tenant's tools expect.
        compress: false,
        trustedKeyGroups: [keyGroup],
        // HSTS and the security headers, as on every behaviour of the site.
        responseHeadersPolicy: props.site.apiResponseHeadersPolicy,
      },
    );
    this.downloadBaseUrl = props.site.url;
  }

  /** Lets an upload route make, presign and complete multipart uploads, and head the result; nothing else. */
  grantUpload(grantee: IGrantable & IConstruct): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...UPLOAD_ACTIONS], resources: [this.bucket.arnForObjects('*')] }),
    );
    Validations.of(grantee).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagName(grantee, Stack.of(this), this.bucket.bucketArn)}/*]`,
      reason:
        "Archives' object keys are random, one per export: the grant is the exports bucket's objects, put and get only.",
    });
  }
}
