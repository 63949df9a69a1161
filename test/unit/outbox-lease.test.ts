import { describe, expect, it } from 'vitest';
import { SES_REQUEST_TIMEOUT_MS, SES_SEND_MAX_MS } from '#ports/mail.ts';
import { OUTBOX_LEASE_MS } from '../../functions/reconciler/outbox.ts';

describe('the outbox lease outlasts the SES call', () => {
  it('a claim lasts longer than the longest send, so only a crash can repeat an email', () => {
    expect(SES_REQUEST_TIMEOUT_MS).toBe(10_000);
    expect(OUTBOX_LEASE_MS).toBe(60_000);
    expect(OUTBOX_LEASE_MS).toBeGreaterThan(SES_SEND_MAX_MS);
  });
});
