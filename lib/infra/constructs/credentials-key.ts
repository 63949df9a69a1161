import { Stack } from 'aws-cdk-lib';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { MATERIAL_CONTEXT_KEYS } from '../../../functions/core/credentials.ts';
import type { CredentialsKeyUse } from '../../routes.ts';
import { pinStateful } from '../stateful.ts';

/**
 * The one KMS action of each use of the key (lib/routes.ts, `usesCredentialsKey`): sealing asks
 * for a fresh data key (GenerateDataKey), opening decrypts one (Decrypt). A function gets the
 * action of its use and nothing more.
 */
export const CREDENTIALS_KEY_ACTION = {
  seal: 'kms:GenerateDataKey',
  open: 'kms:Decrypt',
} as const satisfies Record<CredentialsKeyUse, string>;

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
    });
    // Retained (deleted only by the rollback of the deploy that created it: lib/infra/stateful.ts).
    pinStateful(this.key, 'credentialsKey', { keepsData: true });
  }

  /**
   * Lets `grantee` seal (generate data keys under this key) or open (decrypt them), the one action
   * of its use, and only under a Credential's encryption context (SEAL_OPEN_CONDITIONS).
   */
  grantUse(grantee: IGrantable, use: CredentialsKeyUse): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [CREDENTIALS_KEY_ACTION[use]],
        resources: [this.key.keyArn],
        conditions: SEAL_OPEN_CONDITIONS,
      }),
    );
  }
}
