import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Constants shared by the CDK app (lib/infra/constructs) and the local run (lib/local), here so that the
 * local run never loads aws-cdk-lib (test/unit/configuration.test.ts). Environment variables are
 * declared in functions/ports/config.ts.
 */

/** The repository's root directory. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** How often a processor event may fail before it is parked in the dead-letter queue. */
export const MAX_RECEIVES = 5;
