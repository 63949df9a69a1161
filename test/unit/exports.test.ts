import { describe, expect, it } from 'vitest';
import {
  DOWNLOAD_URL_SECONDS,
  downloadRefusal,
  EXPORT_BUILD_LIMIT_HOURS,
  EXPORT_ID,
  EXPORT_RETENTION_DAYS,
  type ExportRecord,
  effectiveStatus,
  exportId,
  exportView,
  partNumbersProblem,
  startRefusal,
  uploadedPartsProblem,
} from '#core/exports.ts';

/** The export archive's pure rules (functions/core/exports.ts). */

const at = (iso: string) => new Date(iso);
const HOUR = 3600_000;
const requested = (overrides: Partial<ExportRecord> = {}): ExportRecord => ({
  exportId: 'exp_0000000000123456789abc',
  stackId: 'primary',
  status: 'requested',
  requestedAt: '2026-11-01T10:00:00.000Z',
  requestedBy: 'usr_1',
  ...overrides,
});
const running = { lifecycle: 'running' };
const leaving = { lifecycle: 'decommissioning' };
const tornDown = { lifecycle: 'torn_down' };

describe('export ids', () => {
  it('sort by the request time and match the pattern the routes accept', () => {
    const early = exportId(at('2026-11-01T10:00:00Z'), 'ffffffffffff');
    const late = exportId(at('2026-11-01T10:00:01Z'), '000000000000');
    expect(early < late).toBe(true);
    expect(early).toMatch(EXPORT_ID);
  });
});

describe('starting an export', () => {
  it('is allowed on a running or decommissioning Stack with no export under way', () => {
    expect(startRefusal(running, undefined, at('2026-11-01T10:00:00Z'))).toBeUndefined();
    expect(startRefusal(leaving, undefined, at('2026-11-01T10:00:00Z'))).toBeUndefined();
    expect(startRefusal(running, requested({ status: 'ready' }), at('2026-11-01T11:00:00Z'))).toBeUndefined();
    expect(
      startRefusal(running, requested({ status: 'failed' }), at('2026-11-01T11:00:00Z')),
    ).toBeUndefined();
  });

  it('is refused on a torn-down Stack, and while another export runs (naming it)', () => {
    expect(startRefusal(tornDown, undefined, at('2026-11-01T10:00:00Z'))).toEqual({
      code: 'stack_torn_down',
    });
    expect(startRefusal(leaving, requested({ status: 'building' }), at('2026-11-01T11:00:00Z'))).toEqual({
      code: 'export_in_progress',
      exportId: 'exp_0000000000123456789abc',
    });
  });

  it('is allowed again once the running export is past its limit', () => {
    const limit = Date.parse('2026-11-01T10:00:00Z') + EXPORT_BUILD_LIMIT_HOURS * HOUR;
    expect(startRefusal(running, requested(), new Date(limit))?.code).toBe('export_in_progress');
    expect(startRefusal(running, requested(), new Date(limit + 1))).toBeUndefined();
  });
});

describe('the status as of now', () => {
  it('a running export on a torn-down Stack, or past its limit, has failed, and says why', () => {
    expect(effectiveStatus(requested(), tornDown, at('2026-11-01T11:00:00Z'))).toEqual({
      status: 'failed',
      failureCode: 'stack_torn_down',
    });
    expect(effectiveStatus(requested({ status: 'building' }), running, at('2026-11-03T10:00:00Z'))).toEqual({
      status: 'failed',
      failureCode: 'build_timed_out',
    });
    expect(effectiveStatus(requested({ status: 'building' }), running, at('2026-11-01T11:00:00Z'))).toEqual({
      status: 'building',
    });
  });

  it('an ended export keeps its status, whatever happens to the Stack', () => {
    const ready = requested({ status: 'ready', readyAt: '2026-11-01T10:05:00.000Z', sizeBytes: 10 });
    expect(effectiveStatus(ready, tornDown, at('2026-11-09T10:00:00Z'))).toEqual({ status: 'ready' });
  });

  it('a failure recorded before codes were kept shows as the Stack’s failure to build, never its stored words', () => {
    const legacy = {
      ...requested({ status: 'failed', failedAt: '2026-11-01T10:05:00.000Z' }),
      failureReason: 'The Stack could not build the archive: disk full at s3://acme-backups-prod/x',
    };
    expect(effectiveStatus(legacy, running, at('2026-11-02T00:00:00Z'))).toEqual({
      status: 'failed',
      failureCode: 'build_failed',
    });
    expect(JSON.stringify(exportView(legacy, running, at('2026-11-02T00:00:00Z')))).not.toContain('s3://');
  });
});

describe('downloading', () => {
  const ready = requested({ status: 'ready', readyAt: '2026-11-01T10:05:00.000Z', sizeBytes: 10 });
  const readyAt = Date.parse('2026-11-01T10:05:00.000Z');

  it('works for a ready archive while the Stack runs or is decommissioning, for the retention period', () => {
    expect(downloadRefusal(ready, running, new Date(readyAt))).toBeUndefined();
    expect(downloadRefusal(ready, leaving, new Date(readyAt + 86_400_000))).toBeUndefined();
    const end = readyAt + EXPORT_RETENTION_DAYS * 86_400_000;
    expect(downloadRefusal(ready, running, new Date(end - 1))).toBeUndefined();
    expect(downloadRefusal(ready, running, new Date(end))).toBe('export_expired');
  });

  it('is refused before it is ready, after it failed, and once the Stack is torn down', () => {
    expect(downloadRefusal(requested({ status: 'building' }), running, new Date(readyAt))).toBe(
      'export_not_ready',
    );
    expect(downloadRefusal(requested({ status: 'failed' }), running, new Date(readyAt))).toBe(
      'export_failed',
    );
    expect(downloadRefusal(ready, tornDown, new Date(readyAt))).toBe('stack_torn_down');
  });

  it('hands out URLs that live five minutes', () => {
    expect(DOWNLOAD_URL_SECONDS).toBe(300);
  });
});

describe('the upload', () => {
  it('part URLs: 1 to 100 distinct whole numbers from 1 to 10,000', () => {
    expect(partNumbersProblem([1, 2, 3])).toBeUndefined();
    expect(partNumbersProblem([])).toBeDefined();
    expect(partNumbersProblem(Array.from({ length: 101 }, (_, i) => i + 1))).toBeDefined();
    expect(partNumbersProblem([0])).toBeDefined();
    expect(partNumbersProblem([10_001])).toBeDefined();
    expect(partNumbersProblem([1.5])).toBeDefined();
    expect(partNumbersProblem([2, 2])).toBeDefined();
  });

  it('the parts reported: 1, 2, 3, ... in order, without gaps', () => {
    expect(uploadedPartsProblem([{ partNumber: 1 }, { partNumber: 2 }])).toBeUndefined();
    expect(uploadedPartsProblem([])).toBeDefined();
    expect(uploadedPartsProblem([{ partNumber: 2 }])).toBeDefined();
    expect(uploadedPartsProblem([{ partNumber: 1 }, { partNumber: 3 }])).toBeDefined();
    expect(uploadedPartsProblem([{ partNumber: 2 }, { partNumber: 1 }])).toBeDefined();
  });
});

describe("the tenant's view", () => {
  it('shows the size and until when only once ready, the reason only once failed, and nothing of the storage', () => {
    const stored = {
      ...requested({ status: 'ready', readyAt: '2026-11-01T10:05:00.000Z', sizeBytes: 1234 }),
      objectKey: 'exports/secret-key',
      uploadId: 'upload-1',
    };
    const view = exportView(stored, running, at('2026-11-02T00:00:00Z'));
    expect(view).toEqual({
      exportId: stored.exportId,
      stackId: 'primary',
      status: 'ready',
      requestedAt: stored.requestedAt,
      readyAt: '2026-11-01T10:05:00.000Z',
      sizeBytes: 1234,
      failureCode: null,
      failureReason: null,
      availableUntil: '2026-11-08T10:05:00.000Z',
    });
    expect(JSON.stringify(view)).not.toContain('secret-key');
    expect(JSON.stringify(view)).not.toContain('upload-1');
    expect(exportView(requested(), tornDown, at('2026-11-01T11:00:00Z'))).toMatchObject({
      status: 'failed',
      sizeBytes: null,
      failureCode: 'stack_torn_down',
      failureReason: expect.stringContaining('torn down'),
    });
    expect(
      exportView(requested({ status: 'building' }), running, at('2026-11-03T10:00:00Z')).failureReason,
    ).toContain(`within ${EXPORT_BUILD_LIMIT_HOURS} hours`);
  });
});

describe('the S3 client the exports use', () => {
  it('presigns part URLs without a checksum the Dispatcher would have to send (and path-style)', async () => {
    const { S3Client, UploadPartCommand } = await import('@aws-sdk/client-s3');
    const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
    const { s3ClientOptions } = await import('#ports/export-storage.ts');
    const client = new S3Client({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      ...s3ClientOptions(undefined),
    });
    const url = new URL(
      await getSignedUrl(
        client,
        new UploadPartCommand({ Bucket: 'exports-bucket', Key: 'exports/k', UploadId: 'u', PartNumber: 1 }),
        { expiresIn: 900 },
      ),
    );
    client.destroy();
    const names = [...url.searchParams.keys()].map((name) => name.toLowerCase());
    expect(names.filter((name) => name.includes('checksum'))).toEqual([]);
    expect(url.pathname).toBe('/exports-bucket/exports/k');
  });
});
