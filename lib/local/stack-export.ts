import { createReadStream, mkdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { backup } from 'node:sqlite';
import type { Readable } from 'node:stream';
import tar from 'tar-stream';
import type { StackData } from './stack-data.ts';

/**
 * The reference Dispatcher's export archive (docs/exports.md): an uncompressed tar whose entries
 * come in this order: `manifest.json`, `journal.db` (a raw copy of the journal, taken with SQLite's
 * online backup so it is consistent while the Stack keeps writing), `bundles/<threadId>.bundle`
 * (one git bundle per Thread with unshipped commits, exactly those commits). Every file is staged
 * on disk, then streamed into the tar and the tar into the upload: nothing is held whole in memory.
 */

export const MANIFEST_FORMAT = 'stack-export/1';

export interface ManifestThread {
  threadId: string;
  projectId: string;
  issue: string;
  bundle: string;
  sizeBytes: number;
  unshippedCommits: number;
  /** The Thread's last commit (the bundle's `main`). */
  head: string;
  /** What the remote has: the bundle's prerequisite, or null when nothing was ever pushed. */
  shippedHead: string | null;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  exportId: string;
  stack: string;
  why: string;
  requestedAt: string;
  generatedAt: string;
  entries: string[];
  journal: { path: 'journal.db'; format: 'sqlite3'; table: 'events'; sizeBytes: number; events: number };
  threads: ManifestThread[];
}

export interface StagedArchive {
  manifest: Manifest;
  /** The tar's entries in order, each a buffer or a staged file. */
  entries: { name: string; size: number; buffer?: Buffer; file?: string }[];
  /** The tar's exact size in bytes. */
  tarBytes: number;
  /** Removes the staged files. */
  cleanUp(): void;
}

const WHY =
  "An export of the Stack, requested by an administrator of the tenant: the Stack's append-only Event journal, and the commits of its Threads that never reached their remote.";

const tarEntryBytes = (size: number): number => 512 + Math.ceil(size / 512) * 512;

/** Stages the journal copy and the bundles in `workDirectory`, and writes the manifest. */
export const stageArchive = async (
  data: StackData,
  params: { exportId: string; stack: string; requestedAt: string; now: () => Date },
  workDirectory: string,
): Promise<StagedArchive> => {
  rmSync(workDirectory, { recursive: true, force: true });
  mkdirSync(path.join(workDirectory, 'bundles'), { recursive: true });
  const cleanUp = () => rmSync(workDirectory, { recursive: true, force: true });
  try {
    const journalCopy = path.join(workDirectory, 'journal.db');
    const events = data.eventCount();
    await backup(data.journal(), journalCopy);
    const threads: ManifestThread[] = [];
    const bundles: { name: string; size: number; file: string }[] = [];
    for (const thread of data.threads()) {
      const file = path.join(workDirectory, 'bundles', `${thread.threadId}.bundle`);
      const unshipped = await data.unshippedCommits(thread.threadId);
      if (unshipped.length === 0 || !(await data.bundle(thread.threadId, file))) continue;
      const name = `bundles/${thread.threadId}.bundle`;
      const size = statSync(file).size;
      bundles.push({ name, size, file });
      threads.push({
        ...thread,
        bundle: name,
        sizeBytes: size,
        unshippedCommits: unshipped.length,
        head: unshipped[0] ?? '',
        shippedHead: (await data.shippedHead(thread.threadId)) ?? null,
      });
    }
    const journalBytes = statSync(journalCopy).size;
    const manifest: Manifest = {
      format: MANIFEST_FORMAT,
      exportId: params.exportId,
      stack: params.stack,
      why: WHY,
      requestedAt: params.requestedAt,
      generatedAt: params.now().toISOString(),
      entries: ['manifest.json', 'journal.db', ...bundles.map((bundle) => bundle.name)],
      journal: { path: 'journal.db', format: 'sqlite3', table: 'events', sizeBytes: journalBytes, events },
      threads,
    };
    const manifestBuffer = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
    const entries = [
      { name: 'manifest.json', size: manifestBuffer.length, buffer: manifestBuffer },
      { name: 'journal.db', size: journalBytes, file: journalCopy },
      ...bundles,
    ];
    const tarBytes = entries.reduce((sum, entry) => sum + tarEntryBytes(entry.size), 0) + 1024;
    return { manifest, entries, tarBytes, cleanUp };
  } catch (error) {
    cleanUp();
    throw error;
  }
};

/** The tar as a stream: each entry in order, each staged file streamed from disk. */
export const packArchive = (staged: StagedArchive): Readable => {
  const pack = tar.pack();
  const mtime = new Date(staged.manifest.generatedAt);
  const fill = async () => {
    for (const entry of staged.entries) {
      await new Promise<void>((resolve, reject) => {
        const header = { name: entry.name, size: entry.size, mode: 0o644, mtime, type: 'file' as const };
        if (entry.buffer) {
          pack.entry(header, entry.buffer, (error) => (error ? reject(error) : resolve()));
          return;
        }
        const sink = pack.entry(header, (error) => (error ? reject(error) : resolve()));
        const source = createReadStream(entry.file ?? '', { highWaterMark: 256 * 1024 });
        source.on('error', (error) => {
          sink.destroy(error);
          reject(error);
        });
        source.pipe(sink);
      });
    }
    pack.finalize();
  };
  fill().catch((error: unknown) => pack.destroy(error as Error));
  return pack as unknown as Readable;
};

/** The part size for an archive: 8 MiB, larger only when 10,000 parts would not hold it. */
export const partSizeFor = (tarBytes: number): number => {
  const MiB = 1024 * 1024;
  return Math.max(8 * MiB, Math.ceil(tarBytes / 9_000 / MiB) * MiB);
};

export interface UploadedArchive {
  sizeBytes: number;
  parts: { partNumber: number; etag: string }[];
}

/** How a refused part is tried again: attempts in all, and the backoff between them. */
export interface PartRetry {
  /** Attempts per part, the first included (default 6). */
  attempts: number;
  /** The first wait; each next one doubles, capped at `maxDelayMs` (defaults 250 ms and 8 s). */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Waits (tests pass a recorder). */
  sleep: (ms: number) => Promise<void>;
  /** Told of each retry (the fleet's log). */
  onRetry?: (partNumber: number, attempt: number, why: string) => void;
}

const DEFAULT_PART_RETRY: PartRetry = {
  attempts: 6,
  baseDelayMs: 250,
  maxDelayMs: 8_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The wait before attempt `attempt + 1`: exponential with full jitter (as the AWS SDKs back off),
 * so Dispatchers refused together do not come back together.
 */
export const partRetryDelay = (retry: PartRetry, attempt: number, random = Math.random): number =>
  Math.round(random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** (attempt - 1)));

/** What storage answers that is worth another try: it was busy (5xx, SlowDown) or rate-limited us. */
const retryableStatus = (status: number): boolean => status >= 500 || status === 429;

/**
 * Uploads a stream in parts of `partSize` bytes to presigned part URLs (asked for 100 at a time,
 * asked again once older than 10 minutes): one part buffer, reused, is all it holds. A part that
 * storage refuses for now (5xx such as S3's 503 SlowDown, 429, no answer) is sent again with
 * backoff, as docs/exports.md asks of every Dispatcher; a URL refused as expired (403) is asked
 * for afresh once. Only a part that still fails after every attempt gives the upload up.
 */
export const uploadInParts = async (
  source: AsyncIterable<Uint8Array>,
  partSize: number,
  askForUrls: (partNumbers: number[]) => Promise<{ partNumber: number; url: string }[]>,
  retryOptions: Partial<PartRetry> = {},
): Promise<UploadedArchive> => {
  const retry: PartRetry = { ...DEFAULT_PART_RETRY, ...retryOptions };
  const buffer = Buffer.allocUnsafe(partSize);
  let filled = 0;
  let sizeBytes = 0;
  const parts: UploadedArchive['parts'] = [];
  const urls = new Map<number, { url: string; at: number }>();
  const urlFor = async (partNumber: number): Promise<string> => {
    const known = urls.get(partNumber);
    if (known && Date.now() - known.at < 10 * 60_000) return known.url;
    const wanted = Array.from({ length: Math.min(100, 10_001 - partNumber) }, (_, i) => partNumber + i);
    const at = Date.now();
    for (const given of await askForUrls(wanted)) urls.set(given.partNumber, { url: given.url, at });
    const url = urls.get(partNumber)?.url;
    if (!url) throw new Error(`no upload URL for part ${partNumber}`);
    return url;
  };
  /** One PUT of the part: its ETag, or why it failed and whether another try may succeed. */
  const putPart = async (
    partNumber: number,
  ): Promise<{ etag: string } | { why: string; retryable: boolean; expired: boolean }> => {
    let response: Response;
    try {
      response = await fetch(await urlFor(partNumber), { method: 'PUT', body: buffer.subarray(0, filled) });
    } catch (error) {
      return {
        why: `part ${partNumber} got no answer: ${(error as Error).message}`,
        retryable: true,
        expired: false,
      };
    }
    const text = await response.text();
    if (!response.ok)
      return {
        why: `part ${partNumber} answered ${response.status}: ${text.slice(0, 200)}`,
        retryable: retryableStatus(response.status),
        expired: response.status === 403,
      };
    const etag = response.headers.get('etag');
    if (!etag) return { why: `part ${partNumber} answered no ETag`, retryable: false, expired: false };
    return { etag };
  };
  const flush = async () => {
    const partNumber = parts.length + 1;
    let askedAfresh = false;
    let etag: string | undefined;
    for (let attempt = 1; etag === undefined; attempt++) {
      const put = await putPart(partNumber);
      if ('etag' in put) {
        etag = put.etag;
        break;
      }
      if (put.expired && !askedAfresh) {
        // The URL may have expired while the stream was slow: ask for a new one, at once.
        askedAfresh = true;
        urls.delete(partNumber);
        continue;
      }
      if (!put.retryable || attempt >= retry.attempts) throw new Error(put.why);
      retry.onRetry?.(partNumber, attempt, put.why);
      await retry.sleep(partRetryDelay(retry, attempt));
    }
    parts.push({ partNumber, etag });
    sizeBytes += filled;
    filled = 0;
  };
  for await (const chunk of source) {
    let offset = 0;
    while (offset < chunk.length) {
      const n = Math.min(partSize - filled, chunk.length - offset);
      buffer.set(chunk.subarray(offset, offset + n), filled);
      filled += n;
      offset += n;
      if (filled === partSize) await flush();
    }
  }
  if (filled > 0 || parts.length === 0) await flush();
  return { sizeBytes, parts };
};
