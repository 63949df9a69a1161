import { config, type SecretVariable } from './config.ts';

const cache = new Map<string, string>();

/**
 * A secret from the environment: inline locally (`NAME`), or in the cloud from Secrets Manager
 * (`NAME_ARN`), read once per Lambda instance. The SDK is loaded only when needed.
 */
export const secretValue = async (name: SecretVariable): Promise<string> => {
  const { inline, arn } = config.secret(name);
  if (inline) return inline;
  if (!arn) throw new Error(`${name} or ${name}_ARN must be configured`);
  const cached = cache.get(arn);
  if (cached !== undefined) return cached;
  const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
  const { SecretString } = await new SecretsManagerClient({}).send(
    new GetSecretValueCommand({ SecretId: arn }),
  );
  if (!SecretString) throw new Error(`the secret behind ${name}_ARN is empty: set its value`);
  cache.set(arn, SecretString);
  return SecretString;
};
