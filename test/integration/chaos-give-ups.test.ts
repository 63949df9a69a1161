import { describe, expect, it } from 'vitest';
import { getBilling } from '#store/billing.ts';
import { listInventory } from '#store/capacity.ts';
import { tableFaultsForFile } from '../support/faults.ts';
import { gatewayForFile } from '../support/file-gateway.ts';
import type { TestControlPlane } from '../support/gateway.ts';

/**
 * What the 50-tenant chaos runs gave up on (issue 25), each made to happen on purpose with the
 * fault board: this file's table calls go through a fault proxy in front of DynamoDB Local (set
 * before the first table call of the file, so the store's client is built on it).
 */

const board = await tableFaultsForFile(25);

const { api } = gatewayForFile({ processor: true });

type Tenant = Awaited<ReturnType<TestControlPlane['readyTenant']>>;
const checkout = (tenant: Tenant, plan = 'plus') =>
  api.call('POST', '/v1/billing/checkout', { token: tenant.sessionToken, body: { plan } });

describe('a checkout whose place cannot be reserved (a table fault after the claim)', () => {
  it('gives its claim back: the retry goes ahead at once, not 409 checkout_in_progress for a minute', async () => {
    const tenant = await api.readyTenant();
    const before = board.status().byFault['table:transaction-conflict'] ?? 0;
    // The checkout's one transaction is the reservation of its place.
    board.arm({
      dependency: 'table',
      operation: 'TransactWriteItems',
      fault: 'transaction-conflict',
      times: 1,
    });
    const failed = await checkout(tenant);
    expect(failed.status).toBeGreaterThanOrEqual(500);
    expect((board.status().byFault['table:transaction-conflict'] ?? 0) - before).toBe(1);
    board.disarm();
    // Nothing of the attempt stays: no claim, no reservation.
    expect((await getBilling(tenant.tenantId))?.checkout).toBeUndefined();
    const reservations = (await listInventory(tenant.region)).reservations;
    expect(reservations.filter((r) => r.tenantId === tenant.tenantId)).toEqual([]);
    const retried = await checkout(tenant);
    expect(retried.status).toBe(200);
    expect(retried.json.url).toContain('/c/pay/cs_');
  });
});
