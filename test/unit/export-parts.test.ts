import { describe, expect, it } from 'vitest';
import {
  EXPORT_ID,
  type ExportRecord,
  exportId,
  exportView,
  MAX_PART_URLS_PER_REQUEST,
  MAX_PARTS,
  MIN_PART_BYTES,
  PART_URL_SECONDS,
  partNumbersProblem,
  uploadedPartsProblem,
} from '#core/exports.ts';

// The upload of an export archive in parts (S3's multipart limits) and its id, at their edges.

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe("S3's multipart limits", () => {
  it('parts of at least 5 MiB, numbered up to 10,000; part URLs work 15 minutes', () => {
    expect(MIN_PART_BYTES).toBe(5_242_880);
    expect(MAX_PARTS).toBe(10_000);
    expect(PART_URL_SECONDS).toBe(900);
  });
});

describe('part URLs asked for', () => {
  it('at least one, at most the limit per request', () => {
    expect(partNumbersProblem([])).toBe('ask for at least one part number');
    expect(partNumbersProblem(range(1, MAX_PART_URLS_PER_REQUEST))).toBeUndefined();
    expect(partNumbersProblem(range(1, MAX_PART_URLS_PER_REQUEST + 1))).toBe(
      `ask for at most ${MAX_PART_URLS_PER_REQUEST} part numbers at a time`,
    );
  });

  it('whole numbers from 1 to the last part number, any one of them wrong refuses all', () => {
    expect(partNumbersProblem([MAX_PARTS])).toBeUndefined();
    for (const wrong of [[MAX_PARTS + 1], [1, 0], [2, 1.5], [3, -1]])
      expect(partNumbersProblem(wrong), String(wrong)).toBe(
        `part numbers are whole numbers from 1 to ${MAX_PARTS}`,
      );
  });

  it('each number once', () => {
    expect(partNumbersProblem([4, 5, 4])).toBe('each part number once');
  });
});

describe('the parts a Dispatcher says it uploaded', () => {
  const parts = (count: number) => range(1, count).map((partNumber) => ({ partNumber }));

  it('at least one, at most the last part number, numbered in order without gaps', () => {
    expect(uploadedPartsProblem([])).toBe('an archive has at least one part');
    expect(uploadedPartsProblem(parts(MAX_PARTS))).toBeUndefined();
    expect(uploadedPartsProblem(parts(MAX_PARTS + 1))).toBe(`at most ${MAX_PARTS} parts`);
    expect(uploadedPartsProblem([{ partNumber: 1 }, { partNumber: 3 }])).toBe(
      'parts are numbered 1, 2, 3, ... in order, without gaps',
    );
  });
});

describe('an export id', () => {
  const id = exportId(new Date('2026-06-01T00:00:00.000Z'), '0123456789ab');

  it('is exp_, the time and 12 hex digits: nothing before or after', () => {
    expect(EXPORT_ID.test(id)).toBe(true);
    expect(EXPORT_ID.test(`x${id}`)).toBe(false);
    expect(EXPORT_ID.test(`${id}0`)).toBe(false);
  });
});

describe('what the tenant sees of an export', () => {
  const record: ExportRecord = {
    exportId: 'exp_1',
    stackId: 'primary',
    status: 'building',
    requestedAt: '2026-06-01T00:00:00.000Z',
    requestedBy: 'usr_1',
    readyAt: '2026-06-01T01:00:00.000Z',
    sizeBytes: 1234,
  };

  it('the readiness, size and availability only of a ready archive', () => {
    const view = exportView(record, { lifecycle: 'running' }, new Date('2026-06-01T02:00:00.000Z'));
    expect(view).toMatchObject({ status: 'building', readyAt: null, sizeBytes: null, availableUntil: null });
    const ready = exportView({ ...record, status: 'ready' }, { lifecycle: 'running' }, new Date());
    expect(ready).toMatchObject({
      status: 'ready',
      readyAt: '2026-06-01T01:00:00.000Z',
      sizeBytes: 1234,
      availableUntil: '2026-06-08T01:00:00.000Z',
      failureReason: null,
    });
  });
});
