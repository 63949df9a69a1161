import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONSOLE_DIRECTORY } from '../../lib/infra/constructs/console.ts';
import { consoleTenantDay, USAGE } from '../bench/cost.ts';

// The console's CloudFront and S3 usage of a tenant-day: one function (test/bench/cost.ts) that
// `npm run bench` and `npm run bench:scale` both bill from (issue 23).

const files = readdirSync(CONSOLE_DIRECTORY, { recursive: true, withFileTypes: true }).filter((entry) =>
  entry.isFile(),
);
const bytes = files.reduce((sum, entry) => sum + statSync(path.join(entry.parentPath, entry.name)).size, 0);

describe('consoleTenantDay', () => {
  it("counts each visit's console files and their headers through CloudFront, beside the session calls given", () => {
    const day = consoleTenantDay({ requests: 20, bytes: 30_000 }, 100_000);
    expect(files.length).toBeGreaterThan(3);
    expect(day.cloudFrontRequests).toBe(20 + USAGE.consoleVisitsPerTenantPerDay * files.length);
    expect(day.cloudFrontBytesOut).toBe(
      30_000 + USAGE.consoleVisitsPerTenantPerDay * (bytes + files.length * USAGE.responseHeaderBytes),
    );
  });

  it("bills the exports' S3 requests a day and keeps their bytes for the lifecycle's days, the console's files shared by the fleet", () => {
    const small = consoleTenantDay({ requests: 0, bytes: 0 }, 1_000);
    const large = consoleTenantDay({ requests: 0, bytes: 0 }, 100_000);
    expect(small.s3Requests).toBeCloseTo((USAGE.exportsPerTenantMonth / 30) * USAGE.s3RequestsPerExport, 10);
    const exportsKept = USAGE.exportBytes * USAGE.exportsPerTenantMonth * (USAGE.exportKeptDays / 30);
    expect(small.s3BytesPerTenant).toBeCloseTo(exportsKept + bytes / 1_000, 6);
    expect(large.s3BytesPerTenant).toBeCloseTo(exportsKept + bytes / 100_000, 6);
    expect(small.basis).toContain(`${files.length} files`);
  });
});
