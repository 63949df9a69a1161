import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultProxy, startFaultProxy } from '../../lib/local/fault-proxy.ts';
import { FaultBoard } from '../../lib/local/faults.ts';
import { closeServer, listenOn } from '../../lib/local/ports.ts';
import { partRetryDelay, uploadInParts } from '../../lib/local/stack-export.ts';

/**
 * The reference Dispatcher's part upload meets storage refusing for now (S3's 503 SlowDown, as
 * the storage fault proxy answers it): it sends the part again with backoff instead of giving the
 * export up at the first 503. Storage here is a small server that keeps each part PUT to it.
 */

const stored = new Map<number, Buffer>();
const storage = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const partNumber = Number(new URL(request.url ?? '/', 'http://x').searchParams.get('partNumber'));
    stored.set(partNumber, Buffer.concat(chunks));
    response.writeHead(200, { etag: `"etag-${partNumber}"` }).end();
  });
});
const board = new FaultBoard();
let proxy: FaultProxy;
beforeAll(async () => {
  const port = await listenOn(storage, 0, '127.0.0.1');
  proxy = await startFaultProxy('storage', `http://127.0.0.1:${port}`, board);
});
afterAll(async () => {
  await proxy.stop();
  await closeServer(storage);
});

const askForUrls = async (partNumbers: number[]) =>
  partNumbers.map((partNumber) => ({
    partNumber,
    url: `${proxy.endpoint}/bucket/archive.tar?uploadId=u1&partNumber=${partNumber}`,
  }));

async function* bytes(total: number) {
  for (let i = 0; i < total; i += 10) yield Buffer.alloc(Math.min(10, total - i), i / 10);
}

describe("the reference Dispatcher's part upload", () => {
  it('sends a part storage refused with 503 again, after a growing wait, and the upload completes', async () => {
    stored.clear();
    board.arm({ dependency: 'storage', operation: 'upload_part', fault: 'refused', times: 3 });
    const waits: number[] = [];
    const retried: string[] = [];
    const uploaded = await uploadInParts(bytes(50), 20, askForUrls, {
      sleep: async (ms) => {
        waits.push(ms);
      },
      onRetry: (partNumber, attempt, why) => retried.push(`${partNumber}#${attempt} ${why.split(':')[0]}`),
    });
    expect(board.status().fired).toEqual({ 'storage.upload_part:refused': 3 });
    expect(retried).toEqual([
      '1#1 part 1 answered 503',
      '1#2 part 1 answered 503',
      '1#3 part 1 answered 503',
    ]);
    expect(waits).toHaveLength(3);
    expect(uploaded.sizeBytes).toBe(50);
    expect(uploaded.parts).toEqual([
      { partNumber: 1, etag: '"etag-1"' },
      { partNumber: 2, etag: '"etag-2"' },
      { partNumber: 3, etag: '"etag-3"' },
    ]);
    expect([...stored.keys()].sort()).toEqual([1, 2, 3]);
    expect(Buffer.concat([1, 2, 3].map((n) => stored.get(n) ?? Buffer.alloc(0))).length).toBe(50);
  });

  it('gives up only once every attempt was refused, saying so', async () => {
    board.arm({ dependency: 'storage', operation: 'upload_part', fault: 'refused', times: 4 });
    const waits: number[] = [];
    await expect(
      uploadInParts(bytes(10), 20, askForUrls, {
        attempts: 4,
        sleep: async (ms) => {
          waits.push(ms);
        },
      }),
    ).rejects.toThrow(/part 1 answered 503/);
    expect(waits).toHaveLength(3);
    board.disarm();
  });

  it('backs off exponentially with full jitter, capped', () => {
    const retry = { attempts: 6, baseDelayMs: 250, maxDelayMs: 8_000, sleep: async () => undefined };
    expect([1, 2, 3, 4, 5, 6, 7].map((attempt) => partRetryDelay(retry, attempt, () => 1))).toEqual([
      250, 500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(partRetryDelay(retry, 3, () => 0.5)).toBe(500);
  });
});
