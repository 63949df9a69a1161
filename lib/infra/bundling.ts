/**
 * How every Lambda bundle is built. The CDK app (NodejsFunction) and the bench script both use
 * these options, so the bench measures what is deployed.
 */

/**
 * The AWS SDK clients and their document/DynamoDB helpers come with the Lambda runtime; the S3
 * presigner and the CloudFront signer (download and upload URLs of exports) are bundled, since the
 * runtime is not documented to carry them.
 */
export const EXTERNAL_MODULES = ['@aws-sdk/client-*', '@aws-sdk/lib-dynamodb', '@aws-sdk/util-dynamodb'];

export const NODE_TARGET = 'node24';

/** Lets CommonJS dependencies `require` Node built-ins from inside an ESM bundle. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

export const MAIN_FIELDS = ['module', 'main'];
