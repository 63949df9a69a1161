import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { MATERIAL_CONTEXT_KEYS } from '../../../functions/core/credentials.ts';

/** What a function that seals and opens Credentials may do with the key: nothing more. */
export const SEAL_OPEN_ACTIONS = ['kms:GenerateDataKey', 'kms:Decrypt'] as const;

/**
 * The conditions of that grant: the encryption context is exactly the one the code sends
 * (functions/core/credentials.ts, materialContext: whose Credential it is), every key present and
 * no other key.
 */
export const SEAL_OPEN_CONDITIONS = {
  'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...MATERIAL_CONTEXT_KEYS] },
  Null: Object.fromEntries(MATERIAL_CONTEXT_KEYS.map((key) => [`kms:EncryptionContext:${key}`, 'false'])),
};

/**
 * The KMS key that envelope-encrypts the secret material of Credentials (functions/ports/secrets-vault.ts):
 * it only ever encrypts data keys. Rotated yearly by KMS (old versions still decrypt); retained when
 * the stack is deleted, since without it no stored Credential can be read again.
 */
export class CredentialsKey extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.key = new Key(this, 'Key', {
      description: "Envelope encryption of Credentials' secret material (data keys only)",
      enableKeyRotation: true,
      alias: `alias/${Stack.of(this).stackName}-credentials`,
      removalPolicy: RemovalPolicy.RETAIN,
    });
  }

  /**
   * Lets `grantee` generate data keys under this key and decrypt them (seal and open), nothing
   * else, and only under a Credential's encryption context (SEAL_OPEN_CONDITIONS).
   */
  grantSealOpen(grantee: IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...SEAL_OPEN_ACTIONS],
        resources: [this.key.keyArn],
        conditions: SEAL_OPEN_CONDITIONS,
      }),
    );
  }
}
