import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessorEmulator } from '../../lib/local/processor/emulator.ts';
import { webhookEndpoint } from '../support/webhooks.ts';

/**
 * The processor emulator writes its state before it delivers a webhook: a real processor has
 * committed a payment before it tells anyone. Without this, `npm start` killed right after a
 * checkout was paid came back with the event in our intake queue and a processor that no longer
 * knew the payment (its state was written 250 ms later): the restarted sweep found the Checkout
 * Session still open and the tenant never became active (test/e2e/kill-restart.test.ts on CI).
 */

const directory = mkdtempSync(path.join(tmpdir(), 'processor-commits-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe('the processor emulator commits before it notifies', () => {
  it('has the event, and the write that emitted it, on disk when its webhook arrives', async () => {
    const stateFile = path.join(directory, 'processor.json');
    /** For each delivery: the event id, and whether the state file then held it and its object. */
    const seen: { id: string; eventOnDisk: boolean; objectOnDisk: boolean }[] = [];
    const endpoint = await webhookEndpoint((event: { id: string; data: { object: { id: string } } }) => {
      let onDisk: { events?: Record<string, unknown>; paymentMethods?: Record<string, unknown> } = {};
      try {
        onDisk = JSON.parse(readFileSync(stateFile, 'utf8'));
      } catch {
        // no file yet: nothing on disk
      }
      seen.push({
        id: event.id,
        eventOnDisk: Boolean(onDisk.events?.[event.id]),
        objectOnDisk: Boolean(onDisk.paymentMethods?.[event.data.object.id]),
      });
      return 200;
    });
    const emulator = new ProcessorEmulator({ now: () => new Date('2026-11-28T00:00:00Z'), stateFile });
    try {
      emulator.setWebhook({ url: endpoint.url, secret: 'whsec_commits' });
      const customer = emulator.route('POST', '/v1/customers', { email: 'commits@example.test' }) as {
        id: string;
      };
      // A card saved in the Portal: a write and its event (payment_method.attached), as a paid
      // Checkout is, without the Checkout's fixtures.
      expect(emulator.updatePaymentMethod(customer.id, '4242424242424242')).toBeUndefined();
      await emulator.flushWebhooks();
      expect(seen).toHaveLength(1);
      expect(seen).toEqual([{ id: expect.stringMatching(/^evt_/), eventOnDisk: true, objectOnDisk: true }]);
    } finally {
      await emulator.stop();
      await endpoint.close();
    }
  });

  it('keeps events 30 days, as the processor does: older ones are not written again', async () => {
    const stateFile = path.join(directory, 'retention.json');
    let now = new Date('2026-01-01T00:00:00Z');
    const emulator = new ProcessorEmulator({ now: () => now, stateFile });
    const customer = emulator.route('POST', '/v1/customers', { email: 'old@example.test' }) as { id: string };
    emulator.updatePaymentMethod(customer.id, '4242424242424242');
    const [old] = Object.keys(emulator.state.events);
    now = new Date('2026-01-30T00:00:00Z');
    emulator.updatePaymentMethod(customer.id, '4000056655665556');
    now = new Date('2026-02-01T00:00:01Z');
    emulator.saveBeforeAnswer();
    emulator.save();
    emulator.saveBeforeAnswer();
    const onDisk = JSON.parse(readFileSync(stateFile, 'utf8')) as { events: Record<string, unknown> };
    expect(old).toBeDefined();
    expect(Object.keys(onDisk.events)).not.toContain(old);
    expect(Object.keys(onDisk.events)).toHaveLength(1);
    await emulator.stop();
  });
});
