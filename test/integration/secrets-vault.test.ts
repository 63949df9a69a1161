import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSecret, type SealedSecret, sealSecret } from '#ports/secrets-vault.ts';
import { MASTER_KEY_FILE, startLocalKms } from '../../lib/local/kms.ts';

/**
 * The secrets vault port against the KMS stand-in of the global setup (AWS_ENDPOINT_URL_KMS and
 * CREDENTIALS_KEY_ID come from the local cloud), and against stand-ins of its own for the restart.
 */

const context = { tenantId: 'tenant-1', stackId: 'stack-1', credential: 'anthropic-api-key' };
const secret = 'sk-ant-api03-ThisIsNotARealKey-ÿ✓\n{"refresh_token":"r-123"}';

const bytes = (base64: string) => Buffer.from(base64, 'base64');
/** The same bytes with one bit flipped at `index`. */
const flipped = (base64: string, index = 0) => {
  const copy = bytes(base64);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy.toString('base64');
};

const folders: string[] = [];
const saved = { endpoint: process.env.AWS_ENDPOINT_URL_KMS, keyId: process.env.CREDENTIALS_KEY_ID };
afterEach(() => {
  process.env.AWS_ENDPOINT_URL_KMS = saved.endpoint;
  process.env.CREDENTIALS_KEY_ID = saved.keyId;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
const dataFolder = () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'kms-'));
  folders.push(folder);
  return folder;
};

describe('sealing and opening a Credential secret (KMS envelope encryption)', () => {
  it('the local cloud gives the KMS stand-in and its key', () => {
    expect(process.env.AWS_ENDPOINT_URL_KMS).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(process.env.CREDENTIALS_KEY_ID).toMatch(/^arn:aws:kms:[a-z0-9-]+:\d{12}:key\//);
  });

  it('round-trips: what was sealed opens to the same text', async () => {
    const sealed = await sealSecret(secret, context);
    expect(await openSecret(sealed, context)).toBe(secret);
    expect(await openSecret(await sealSecret('', context), context)).toBe('');
  });

  it('the order of the context entries does not matter', async () => {
    const sealed = await sealSecret(secret, context);
    const reordered = {
      credential: context.credential,
      stackId: context.stackId,
      tenantId: context.tenantId,
    };
    expect(await openSecret(sealed, reordered)).toBe(secret);
  });

  it('the stored parts never contain the plaintext: a 12-byte iv, a 16-byte tag, a ciphertext as long as the text', async () => {
    const sealed = await sealSecret(secret, context);
    expect(Object.keys(sealed).sort()).toEqual(['ciphertext', 'iv', 'keyCiphertext', 'tag']);
    const stored = JSON.stringify(sealed);
    const plain = Buffer.from(secret, 'utf8');
    for (const [name, part] of Object.entries(sealed)) {
      expect(part, name).toMatch(/^[A-Za-z0-9+/]+=*$/);
      expect(bytes(part).includes(plain), name).toBe(false);
      expect(bytes(part).includes(plain.subarray(0, 12)), name).toBe(false);
    }
    expect(stored).not.toContain('sk-ant');
    expect(stored).not.toContain('refresh_token');
    expect(bytes(sealed.iv)).toHaveLength(12);
    expect(bytes(sealed.tag)).toHaveLength(16);
    expect(bytes(sealed.ciphertext)).toHaveLength(plain.length);
  });

  it('two seals of the same text differ in every part (a fresh data key and iv each time)', async () => {
    const [first, second] = await Promise.all([sealSecret(secret, context), sealSecret(secret, context)]);
    for (const part of ['keyCiphertext', 'iv', 'tag', 'ciphertext'] as const)
      expect(first[part], part).not.toBe(second[part]);
  });

  it('a wrong context does not open: another Credential, another Stack, another tenant, an extra entry', async () => {
    const sealed = await sealSecret(secret, context);
    for (const wrong of [
      { ...context, credential: 'openai-api-key' },
      { ...context, stackId: 'stack-2' },
      { ...context, tenantId: 'tenant-2' },
      { ...context, extra: 'x' },
      {},
    ])
      await expect(openSecret(sealed, wrong), JSON.stringify(wrong)).rejects.toMatchObject({
        name: 'InvalidCiphertextException',
      });
  });

  it('a tampered data key is refused by KMS (InvalidCiphertextException)', async () => {
    const sealed = await sealSecret(secret, context);
    for (const index of [0, 5, bytes(sealed.keyCiphertext).length - 1])
      await expect(
        openSecret({ ...sealed, keyCiphertext: flipped(sealed.keyCiphertext, index) }, context),
      ).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    await expect(
      openSecret(
        { ...sealed, keyCiphertext: bytes(sealed.keyCiphertext).subarray(0, 20).toString('base64') },
        context,
      ),
    ).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
  });

  it('a tampered ciphertext, tag or iv fails authentication', async () => {
    const sealed = await sealSecret(secret, context);
    const tampered: SealedSecret[] = [
      { ...sealed, ciphertext: flipped(sealed.ciphertext) },
      { ...sealed, ciphertext: flipped(sealed.ciphertext, bytes(sealed.ciphertext).length - 1) },
      { ...sealed, tag: flipped(sealed.tag, 15) },
      { ...sealed, iv: flipped(sealed.iv, 3) },
    ];
    for (const sealedWrong of tampered)
      await expect(openSecret(sealedWrong, context)).rejects.toThrow(/unable to authenticate/);
    // A shortened tag is refused outright, not checked on fewer bytes.
    await expect(
      openSecret({ ...sealed, tag: bytes(sealed.tag).subarray(0, 4).toString('base64') }, context),
    ).rejects.toThrow();
  });

  it("a data key of another seal does not open this one's data", async () => {
    const [one, other] = await Promise.all([sealSecret(secret, context), sealSecret(secret, context)]);
    await expect(openSecret({ ...one, keyCiphertext: other.keyCiphertext }, context)).rejects.toThrow(
      /unable to authenticate/,
    );
  });

  it('an unknown key id is NotFoundException', async () => {
    process.env.CREDENTIALS_KEY_ID = 'arn:aws:kms:eu-west-1:000000000000:key/no-such-key';
    await expect(sealSecret(secret, context)).rejects.toMatchObject({ name: 'NotFoundException' });
  });
});

/**
 * Runs `work` with the control plane's KMS endpoint (and, unless `keepKeyId`, its key id) pointed
 * at `kms`, then stops that stand-in.
 */
const against = async <T>(
  kms: Awaited<ReturnType<typeof startLocalKms>>,
  work: () => Promise<T>,
  { keepKeyId = false } = {},
): Promise<T> => {
  try {
    process.env.AWS_ENDPOINT_URL_KMS = kms.endpoint;
    if (!keepKeyId) process.env.CREDENTIALS_KEY_ID = kms.keyId;
    return await work();
  } finally {
    await kms.stop();
  }
};

describe('the KMS stand-in', () => {
  it('keeps its master key across a restart with the same data folder (mode 0600), not with another', async () => {
    const folder = dataFolder();
    const sealed = await against(await startLocalKms({ dataDirectory: folder }), () =>
      sealSecret(secret, context),
    );
    const keyFile = path.join(folder, MASTER_KEY_FILE);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(statSync(keyFile).size).toBe(32);

    await against(await startLocalKms({ dataDirectory: folder }), async () => {
      expect(await openSecret(sealed, context)).toBe(secret);
    });

    await against(await startLocalKms({ dataDirectory: dataFolder() }), async () => {
      await expect(openSecret(sealed, context)).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    });
  });

  it('without a data folder, the key lives in memory: a new stand-in cannot open what the last one sealed', async () => {
    const sealed = await against(await startLocalKms(), async () => {
      const sealed = await sealSecret(secret, context);
      expect(await openSecret(sealed, context)).toBe(secret);
      return sealed;
    });
    await against(
      await startLocalKms(),
      async () => {
        await expect(openSecret(sealed, context)).rejects.toMatchObject({
          name: 'InvalidCiphertextException',
        });
      },
      { keepKeyId: true },
    );
  });

  it('answers Encrypt and Decrypt as KMS does, and refuses an operation it does not know', async () => {
    const kms = await startLocalKms();
    try {
      const call = async (operation: string, body: object) => {
        const response = await fetch(kms.endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-amz-json-1.1',
            'x-amz-target': `TrentService.${operation}`,
          },
          body: JSON.stringify(body),
        });
        return { status: response.status, json: (await response.json()) as Record<string, string> };
      };
      const plaintext = Buffer.from('hello').toString('base64');
      const encrypted = await call('Encrypt', {
        KeyId: kms.keyId,
        Plaintext: plaintext,
        EncryptionContext: { a: '1' },
      });
      expect(encrypted.status).toBe(200);
      expect(encrypted.json.KeyId).toBe(kms.keyId);
      const decrypted = await call('Decrypt', {
        CiphertextBlob: encrypted.json.CiphertextBlob,
        EncryptionContext: { a: '1' },
      });
      expect(decrypted).toMatchObject({ status: 200, json: { KeyId: kms.keyId, Plaintext: plaintext } });
      expect(
        await call('Decrypt', {
          CiphertextBlob: encrypted.json.CiphertextBlob,
          EncryptionContext: { a: '2' },
        }),
      ).toMatchObject({ status: 400, json: { __type: 'InvalidCiphertextException' } });
      expect(
        await call('Decrypt', { CiphertextBlob: encrypted.json.CiphertextBlob, KeyId: 'alias/other' }),
      ).toMatchObject({ status: 400, json: { __type: 'NotFoundException' } });
      expect(await call('ScheduleKeyDeletion', { KeyId: kms.keyId })).toMatchObject({
        status: 400,
        json: { __type: 'UnknownOperationException' },
      });
    } finally {
      await kms.stop();
    }
  });
});
