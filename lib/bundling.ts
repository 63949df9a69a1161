/**
 * How every Lambda bundle is built. The CDK app (NodejsFunction) and the bench script both use
 * these options, so the bench measures what is deployed.
 */

/** Provided by the nodejs24.x Lambda runtime, so not bundled (see docs/decisions.md). */
export const EXTERNAL_MODULES = ['@aws-sdk/*'];

export const NODE_TARGET = 'node24';

/** Lets CommonJS dependencies `require` Node built-ins from inside an ESM bundle. */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

export const MAIN_FIELDS = ['module', 'main'];
