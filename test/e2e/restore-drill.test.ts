import { expect, it } from 'vitest';
import { runRestoreDrill } from '../support/restore-drill.ts';

/**
 * The restore drill's core (issue 37, item 5; `npm run drill:restore` runs it larger): a copy of
 * the table taken mid-day, the day gone on, the control plane pointed at the copy. It runs its own
 * control plane in this process (not the e2e run's shared one): it changes the table the handlers
 * use.
 */
it('after a restore to a copy taken mid-day, the sweeps re-derive the tenants the copy knows; those it does not are listed; the invariants hold', async () => {
  const lines: string[] = [];
  const result = await runRestoreDrill({ before: 3, after: 1, log: (line) => lines.push(line) });
  // The tenant who checked out after the copy: its processor subscription is listed for the operator.
  expect(result.missing).toEqual([expect.objectContaining({ login: 'drill-late-0', status: 'active' })]);
  // The tenant who cancelled after the copy: active in the copy, re-derived from the processor.
  expect(result.rederived).toEqual([expect.stringMatching(/^drill-1: active → /)]);
  expect(result.violations).toEqual([]);
  expect(lines.at(-1)).toBe(result.line);
}, 600_000);
