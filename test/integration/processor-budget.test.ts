import { randomUUID } from 'node:crypto';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountBudget, budgetShape, type ProcessorShare, placesFor } from '#ports/rate-limit.ts';
import { claimProcessorPlace } from '#store/processor-budget.ts';
import { ensureTable } from '../../lib/local/dynamodb.ts';
import { busiestSecond } from '../support/busiest-second.ts';

/*
 * One processor budget per account (issue 23): callers in several processes (here three budgets,
 * as three Lambda containers would hold) claim their slots in the same table, against DynamoDB
 * Local, and together never start more calls in any second than the account allows. A table of
 * its own, so no other file's calls share the account.
 */
const table = `processor-budget-${randomUUID().slice(0, 8)}`;

beforeAll(async () => {
  await ensureTable(process.env.AWS_ENDPOINT_URL_DYNAMODB ?? '', table);
  process.env.TABLE_NAME = table;
});

afterAll(async () => {
  await new DynamoDBClient({}).send(new DeleteTableCommand({ TableName: table }));
});

describe('the processor budget in the table', () => {
  it('a sweep, API handlers and a Plan Change task in three processes never exceed the live limit together', async () => {
    const perSecond = 100;
    const account = `test-${randomUUID().slice(0, 8)}`;
    const budgets = Array.from(
      { length: 3 },
      () =>
        new AccountBudget({
          perSecond,
          claim: (window, places) =>
            claimProcessorPlace(account, window, places, Math.floor(Date.now() / 1000) + 3600),
        }),
    );
    const starts: { at: number; share: ProcessorShare; slot: number }[] = [];
    for (const budget of budgets) budget.observer = (at, share, slot) => starts.push({ at, share, slot });
    const demand: [number, ProcessorShare, number][] = [
      [0, 'sweep', 40],
      [1, 'shared', 20],
      [2, 'shared', 20],
    ];
    await Promise.all(
      demand.flatMap(([process, share, count]) =>
        Array.from({ length: count }, () => budgets[process]?.acquire(share)),
      ),
    );
    expect(starts).toHaveLength(80);
    // Never above the account's limit in any second, whoever called.
    expect(busiestSecond(starts.map((start) => start.at))).toBeLessThanOrEqual(perSecond);
    // One budget: no window had more calls than its places, in whichever processes they ran, and
    // each started inside its window.
    const { places, windowMs } = budgetShape(perSecond);
    const perWindow = new Map<number, ProcessorShare[]>();
    for (const { at, share, slot } of starts) {
      perWindow.set(slot, [...(perWindow.get(slot) ?? []), share]);
      expect(at).toBeGreaterThanOrEqual(slot * windowMs);
      expect(at).toBeLessThan((slot + 1) * windowMs);
    }
    for (const [window, shares] of perWindow) {
      expect(shares.length).toBeLessThanOrEqual(places);
      // The sweep's own places went to the sweep only.
      expect(shares.filter((share) => share === 'shared').length).toBeLessThanOrEqual(
        placesFor(places, 'shared', window),
      );
    }
  }, 120_000);

  it('a window takes as many calls as its places, then refuses; the next window is another', async () => {
    const account = `test-${randomUUID().slice(0, 8)}`;
    expect(await claimProcessorPlace(account, 42, 2, 0)).toBe(true);
    expect(await claimProcessorPlace(account, 42, 2, 0)).toBe(true);
    expect(await claimProcessorPlace(account, 42, 2, 0)).toBe(false);
    // The sweep's share may take the reserved place the others could not.
    expect(await claimProcessorPlace(account, 42, 3, 0)).toBe(true);
    expect(await claimProcessorPlace(account, 43, 2, 0)).toBe(true);
  });
});
