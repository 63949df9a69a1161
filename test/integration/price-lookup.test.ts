import { describe, expect, it } from 'vitest';
import { priceIdForPlan, syncCatalog } from '#ports/processor/catalog.ts';
import { gatewayForFile } from '../support/file-gateway.ts';

/*
 * A Plan's price is cached a few minutes per instance; when the cache runs out under a busy
 * sweep, its reconciliations (32 at once) must not each spend a place of the account's processor
 * budget on the same lookup (issue 23's scale bench found about 30% of its calls were these).
 */
const { api, emulator } = gatewayForFile({ processor: true });

const priceLookups = () => emulator.calls.filter((c) => c.method === 'GET' && c.path === '/v1/prices').length;

describe("a Plan's price", () => {
  it('is looked up once by callers that miss the cache at the same time, and then cached', async () => {
    await syncCatalog();
    // Past any earlier lookup's cache.
    const later = api.clock.now().getTime() + 3_600_000;
    const before = priceLookups();
    const ids = await Promise.all(Array.from({ length: 10 }, () => priceIdForPlan('plus', later)));
    expect(new Set(ids).size).toBe(1);
    expect(priceLookups() - before).toBe(1);
    expect(await priceIdForPlan('plus', later + 60_000)).toBe(ids[0]);
    expect(priceLookups() - before).toBe(1);
    // Once the cache has run out, the next caller asks again.
    await priceIdForPlan('plus', later + 6 * 60_000);
    expect(priceLookups() - before).toBe(2);
  });
});
