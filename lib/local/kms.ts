import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { closeServer, listenOn } from './ports.ts';
import { LOCAL_ACCOUNT } from './stepfunctions.ts';

/**
 * A KMS stand-in for the local run and the tests (there is none on npm): one symmetric key, and
 * the three operations envelope encryption needs (GenerateDataKey, Decrypt, Encrypt) over KMS's
 * JSON protocol, so @aws-sdk/client-kms talks to it unchanged. Its "ciphertext blob" is its own:
 * a version byte, the AES-GCM iv and tag, and the data encrypted with the master key, the
 * encryption context bound as additional data, as KMS binds it.
 */
export interface LocalKms {
  endpoint: string;
  /** The one key's id (an ARN), to give as CREDENTIALS_KEY_ID. */
  keyId: string;
  stop(): Promise<void>;
}

export interface LocalKmsOptions {
  /** Keeps the master key in `<dataDirectory>/kms-master.key` (created once); in memory when absent. */
  dataDirectory?: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  region?: string;
}

export const MASTER_KEY_FILE = 'kms-master.key';
const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

class KmsError extends Error {
  readonly type: string;
  constructor(type: string, message: string) {
    super(message);
    this.type = type;
  }
}

const masterKey = (dataDirectory: string | undefined): Buffer => {
  if (!dataDirectory) return randomBytes(32);
  const file = path.join(dataDirectory, MASTER_KEY_FILE);
  mkdirSync(dataDirectory, { recursive: true });
  try {
    writeFileSync(file, randomBytes(32), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const key = readFileSync(file);
  if (key.length !== 32) throw new Error(`${file} is not a 32-byte key`);
  return key;
};

/** The encryption context as additional data: its entries sorted by key, as JSON. */
const aad = (context: unknown): Buffer =>
  Buffer.from(
    JSON.stringify(
      Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) =>
        a < b ? -1 : a > b ? 1 : 0,
      ),
    ),
    'utf8',
  );

export const startLocalKms = async (options: LocalKmsOptions = {}): Promise<LocalKms> => {
  const master = masterKey(options.dataDirectory);
  const keyId = `arn:aws:kms:${options.region ?? 'eu-west-1'}:${LOCAL_ACCOUNT}:key/local-credentials`;
  const checkKey = (id: unknown, required: boolean) => {
    if ((id !== undefined || required) && id !== keyId && id !== 'alias/local-credentials')
      throw new KmsError('NotFoundException', `Key '${String(id)}' does not exist`);
  };
  const seal = (plaintext: Buffer, context: unknown): string => {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', master, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(context));
    const sealed = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.of(VERSION), iv, cipher.getAuthTag(), sealed]).toString('base64');
  };
  const open = (blob: unknown, context: unknown): Buffer => {
    const bytes = Buffer.from(String(blob ?? ''), 'base64');
    try {
      if (bytes[0] !== VERSION || bytes.length < 1 + IV_BYTES + TAG_BYTES) throw new Error('not our blob');
      const decipher = createDecipheriv('aes-256-gcm', master, bytes.subarray(1, 1 + IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(aad(context));
      decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
    } catch {
      throw new KmsError('InvalidCiphertextException', 'the ciphertext or its encryption context is invalid');
    }
  };
  const operations: Record<string, (input: Record<string, unknown>) => object> = {
    GenerateDataKey: (input) => {
      checkKey(input.KeyId, true);
      const size = input.KeySpec === 'AES_128' ? 16 : input.KeySpec === 'AES_256' ? 32 : input.NumberOfBytes;
      if (typeof size !== 'number' || size < 1 || size > 1024)
        throw new KmsError('ValidationException', 'give KeySpec (AES_256, AES_128) or NumberOfBytes');
      const dataKey = randomBytes(size);
      const CiphertextBlob = seal(dataKey, input.EncryptionContext);
      return { KeyId: keyId, Plaintext: dataKey.toString('base64'), CiphertextBlob };
    },
    Encrypt: (input) => {
      checkKey(input.KeyId, true);
      const CiphertextBlob = seal(
        Buffer.from(String(input.Plaintext ?? ''), 'base64'),
        input.EncryptionContext,
      );
      return { KeyId: keyId, CiphertextBlob, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
    Decrypt: (input) => {
      checkKey(input.KeyId, false);
      const plaintext = open(input.CiphertextBlob, input.EncryptionContext);
      return {
        KeyId: keyId,
        Plaintext: plaintext.toString('base64'),
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      };
    },
  };

  const reply = (response: ServerResponse, status: number, body: object, errorType?: string) =>
    response
      .writeHead(status, {
        'content-type': 'application/x-amz-json-1.1',
        'x-amzn-requestid': randomUUID(),
        ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
      })
      .end(JSON.stringify(body));
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    try {
      const target = String(request.headers['x-amz-target'] ?? '');
      const name = target.startsWith('TrentService.') ? target.slice('TrentService.'.length) : '';
      const operation = Object.hasOwn(operations, name) ? operations[name] : undefined;
      if (request.method !== 'POST' || !operation)
        throw new KmsError('UnknownOperationException', `the local KMS does not do ${target || 'that'}`);
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as Record<string, unknown>;
      reply(response, 200, operation(input));
    } catch (error) {
      if (error instanceof KmsError)
        reply(response, 400, { __type: error.type, message: error.message }, error.type);
      else
        reply(
          response,
          500,
          { __type: 'KMSInternalException', message: String(error) },
          'KMSInternalException',
        );
    }
  };
  const server = createServer((request, response) => void handle(request, response));
  const port = await listenOn(server, options.port ?? 0, '127.0.0.1');
  return { endpoint: `http://127.0.0.1:${port}`, keyId, stop: () => closeServer(server) };
};
