import { type SecretName, secretPlaceholderProblem } from '#core/secret-shape.ts';
import { clock } from './clock.ts';
import { config } from './config.ts';
import { logger } from './logger.ts';
import { recordSecretNotSet } from './metrics.ts';

/**
 * How long a secret read from Secrets Manager is used before it is read again. A value pasted into
 * a secret reaches every function within this time (plus the call in flight), with no deploy:
 * docs/runbook.md, "Secrets". Each warm function instance reads each secret it uses at most once
 * per period (a few reads an hour: Secrets Manager bills per 10,000).
 */
export const SECRET_MAX_AGE_MINUTES = 5;
const SECRET_MAX_AGE_MS = SECRET_MAX_AGE_MINUTES * 60_000;

/** Reads a secret's current value by its ARN (undefined: it has none). */
export type SecretSource = (arn: string) => Promise<string | undefined>;

/**
 * Secrets Manager through Powertools Parameters (loaded only when needed). The one cache is ours,
 * below, bounded to `SECRET_MAX_AGE_MINUTES` on the Clock port (time comes from the Clock only, and
 * a test can move past it), so Powertools is asked to fetch (`forceFetch`): two caches in a row
 * would let a pasted value wait up to twice the period.
 */
const secretsManager: SecretSource = async (arn) => {
  const { getSecret } = await import('@aws-lambda-powertools/parameters/secrets');
  const value = await getSecret(arn, { forceFetch: true });
  return typeof value === 'string' ? value : undefined;
};

let source: SecretSource = secretsManager;
/** What was read, by ARN, and when (on the Clock). A read in flight is shared. */
const cache = new Map<string, { value: Promise<string | undefined>; readAt: number }>();

/** Tests only: read secrets from `replacement` (and forget what was read). */
export const installSecretSource = (replacement: SecretSource = secretsManager): void => {
  source = replacement;
  cache.clear();
};

/** A secret that cannot be used: still the generated placeholder, or empty. Its message says what to set. */
export class SecretNotSet extends Error {
  override readonly name = 'SecretNotSet';
}

const read = (arn: string): Promise<string | undefined> => {
  const now = clock().now().getTime();
  const cached = cache.get(arn);
  if (cached && now - cached.readAt < SECRET_MAX_AGE_MS) return cached.value;
  const value = source(arn);
  cache.set(arn, { value, readAt: now });
  // A failed read is not kept: the next use reads again.
  value.catch(() => {
    if (cache.get(arn)?.value === value) cache.delete(arn);
  });
  return value;
};

/**
 * A secret from the environment: inline locally (`NAME`), or in the cloud from Secrets Manager
 * (`NAME_ARN`), read again after `SECRET_MAX_AGE_MINUTES`. A value that is still the placeholder
 * generated at the first deploy (or empty) throws `SecretNotSet` and counts in the `SecretsNotSet`
 * metric (its alarm rings); the value itself is never logged.
 */
export const secretValue = async (name: SecretName): Promise<string> => {
  const { inline, arn } = config.secret(name);
  const value = inline || (arn ? await read(arn) : undefined);
  if (!inline && !arn) throw new Error(`${name} or ${name}_ARN must be configured`);
  const problem = secretPlaceholderProblem(name, value ?? '');
  if (problem) {
    logger.error('a secret is not set', { secret: name, problem });
    recordSecretNotSet();
    throw new SecretNotSet(
      `${problem}: put the real value into ${inline ? name : `the secret behind ${name}_ARN`} (docs/runbook.md, "Secrets"); it is used within ${SECRET_MAX_AGE_MINUTES} minutes, no deploy needed`,
    );
  }
  return value as string;
};
