import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { config } from './config.ts';
import { traced } from './tracer.ts';

/**
 * The secrets vault port: envelope encryption of Credentials' secret material with the stack's KMS
 * key. KMS gives a fresh data key per secret (GenerateDataKey, AES_256); the material is encrypted
 * here with AES-256-GCM, and only the data key encrypted by KMS is kept beside it. Reading it back
 * asks KMS to decrypt the data key (Decrypt). The encryption context (whose secret it is) is bound
 * twice: by KMS to the data key, and here as the AES-GCM additional data, so a sealed secret moved
 * to another context does not open. Locally AWS_ENDPOINT_URL_KMS points the SDK at the stand-in
 * (lib/local/kms.ts), which speaks the same protocol.
 */

/** A sealed secret, every part base64: what the store keeps, never the plaintext. */
export interface SealedSecret {
  /** The data key, encrypted by KMS under the encryption context. */
  keyCiphertext: string;
  /** The AES-GCM nonce (12 bytes). */
  iv: string;
  /** The AES-GCM authentication tag (16 bytes). */
  tag: string;
  ciphertext: string;
}

let cached: { endpoint: string | undefined; client: KMSClient } | undefined;
const kms = (): KMSClient => {
  const endpoint = config.kmsEndpoint();
  // A new client when the endpoint changes (each local control plane, or test, has its own stand-in).
  if (!cached || cached.endpoint !== endpoint) {
    cached?.client.destroy();
    cached = { endpoint, client: traced(new KMSClient(endpoint ? { endpoint } : {})) };
  }
  return cached.client;
};

const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
/** Fixed, so a shortened tag is refused rather than checked on fewer bytes. */
const TAG_BYTES = 16;

/** The context as AES-GCM additional data: its entries sorted by key, as JSON (one text per context). */
export const contextAad = (context: Record<string, string>): Buffer =>
  Buffer.from(
    JSON.stringify(Object.entries(context).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    'utf8',
  );

/** Encrypts `plaintext` under a fresh data key bound to `context`. */
export const sealSecret = async (
  plaintext: string,
  context: Record<string, string>,
): Promise<SealedSecret> => {
  const { Plaintext: dataKey, CiphertextBlob } = await kms().send(
    new GenerateDataKeyCommand({
      KeyId: config.credentialsKeyId(),
      KeySpec: 'AES_256',
      EncryptionContext: context,
    }),
  );
  if (!dataKey || !CiphertextBlob) throw new Error('KMS returned no data key');
  const iv = randomBytes(IV_BYTES);
  try {
    const cipher = createCipheriv(ALGORITHM, dataKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(contextAad(context));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return {
      keyCiphertext: Buffer.from(CiphertextBlob).toString('base64'),
      iv: iv.toString('base64'),
      tag: cipher.getAuthTag().toString('base64'),
      ciphertext: ciphertext.toString('base64'),
    };
  } finally {
    dataKey.fill(0);
  }
};

/** Decrypts a sealed secret; throws when the context is not the one it was sealed with, or a part was altered. */
export const openSecret = async (sealed: SealedSecret, context: Record<string, string>): Promise<string> => {
  const { Plaintext: dataKey } = await kms().send(
    new DecryptCommand({
      CiphertextBlob: Buffer.from(sealed.keyCiphertext, 'base64'),
      EncryptionContext: context,
      KeyId: config.credentialsKeyId(),
    }),
  );
  if (!dataKey) throw new Error('KMS returned no data key');
  try {
    const decipher = createDecipheriv(ALGORITHM, dataKey, Buffer.from(sealed.iv, 'base64'), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(contextAad(context));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([
      decipher.update(Buffer.from(sealed.ciphertext, 'base64')),
      decipher.final(),
    ]).toString('utf8');
  } finally {
    dataKey.fill(0);
  }
};
