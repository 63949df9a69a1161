// Plan Changes: progress and history, from the API each time (so it survives reload and sign-in).
import { api } from '../api.js';
import { dateTime, h, label, money } from '../dom.js';
import { askFirst, dl, planName, poll, route, screen, table } from '../ui.js';
import { changeOnNextInvoice } from './stacks.js';

const OPEN = (/** @type {any} */ c) =>
  !c.outcome && !['completed', 'cancelled', 'expired', 'rolled_back', 'failed'].includes(c.status);

/** Ended without moving the Stack (or completed unbilled): nothing was billed for it. */
const NOTHING_BILLED = (/** @type {any} */ c) =>
  c.reasonCode === 'completed_not_billed' ||
  (!c.final && ['cancelled', 'rolled_back', 'expired', 'superseded'].includes(c.status));

/**
 * The card's money: while the change runs, the estimate and "not billed yet"; once billing
 * committed, the final figures (after discount, tax, total) beside the estimate's; an ended change
 * that billed nothing shows no figure, only words that say so.
 */
const moneyRows = (/** @type {any} */ c) => {
  if (NOTHING_BILLED(c))
    return /** @type {[string, string][]} */ ([
      ['Billing', 'Nothing was billed for this change: billing is unchanged by it.'],
    ]);
  if (!c.final)
    return /** @type {[string, string][]} */ ([
      c.estimate ? changeOnNextInvoice(c.estimate) : ['Estimated change to your next invoice', '—'],
      ['Final adjustment', 'Not billed yet'],
    ]);
  return [];
};

/** The final figures beside the estimate's, and their differences. */
const finalTable = (/** @type {any} */ c) => {
  const f = c.final;
  const m = (/** @type {number|null|undefined} */ amount) =>
    amount === null || amount === undefined ? '—' : money({ amount, currency: f.currency });
  const less = (/** @type {any} */ a, /** @type {any} */ b) =>
    a === null || a === undefined || b === null || b === undefined ? null : a - b;
  return table(
    'What this change adds to your next invoice',
    ['', 'Estimate', 'Final', 'Difference'],
    [
      ['After discount', m(f.estimatedAdjustment), m(f.adjustment), m(f.difference)],
      [
        'Tax',
        m(f.estimatedAdjustmentTax),
        m(f.adjustmentTax),
        m(less(f.adjustmentTax, f.estimatedAdjustmentTax)),
      ],
      [
        'Total on your next invoice',
        m(f.estimatedAdjustmentTotal),
        m(f.adjustmentTotal),
        m(f.totalDifference),
      ],
    ],
  );
};

/**
 * Cancel, asked first in the page: what the cancel does, then Confirm or Keep the change. Nothing
 * is sent until the tenant confirms.
 */
const cancelControl = (/** @type {any} */ c, /** @type {any[]} */ plans, /** @type {string} */ stack) =>
  h(
    'div',
    { class: 'plan-change-cancel' },
    ...askFirst({
      label: 'Cancel this Plan Change',
      question: `Cancel the change of ${stack} from the ${planName(plans, c.currentPlan)} Plan to the ${planName(plans, c.requestedPlan)} Plan? The Stack stays on its current Plan and nothing is billed for the change. You may confirm a change again later.`,
      confirmText: 'Confirm: cancel this Plan Change',
      keepText: 'Keep the change',
      onConfirm: async () => {
        await api('POST', `/v1/plan-changes/${c.changeId}/cancel`);
        await route();
      },
    }),
  );

export const planChangesScreen = async (/** @type {any} */ me) => {
  const [{ planChanges }, { plans }, { stacks }] = await Promise.all([
    api('GET', '/v1/plan-changes'),
    api('GET', '/v1/billing/plans'),
    api('GET', '/v1/stacks'),
  ]);
  const stackName = (/** @type {string} */ stackId) =>
    stacks.find((/** @type {any} */ s) => s.stackId === stackId)?.name ?? stackId;
  screen(
    'Plan Changes',
    planChanges.some(OPEN) ? h('p', {}, 'A change is under way: this page follows it by itself.') : '',
    planChanges.length
      ? h('div', {}, ...planChanges.map((/** @type {any} */ c) => changeCard(c, plans, stackName(c.stackId))))
      : h(
          'p',
          {},
          me?.billingState === 'decommissioning'
            ? 'No Plan Changes: none can start while the account closes.'
            : // A release gate down: the Stacks show no Plan Change control (the API refuses them).
              !me?.planChangeControls?.visible
              ? 'No Plan Changes: they are not available yet.'
              : 'No Plan Changes yet. Start one from a Stack on the Stacks page.',
        ),
  );
  if (planChanges.some(OPEN))
    poll(
      async () => {
        const again = await api('GET', '/v1/plan-changes');
        return JSON.stringify(again.planChanges) !== JSON.stringify(planChanges);
      },
      () => planChangesScreen(me),
    );
};

const changeCard = (/** @type {any} */ c, /** @type {any[]} */ plans, /** @type {string} */ stack) =>
  h(
    'section',
    { class: 'card', 'aria-label': `Plan Change ${c.changeId}` },
    h('h3', {}, `${stack}: ${planName(plans, c.currentPlan)} to ${planName(plans, c.requestedPlan)}`),
    dl([
      ['Status', h('span', { 'data-status': c.status }, label(c.status))],
      ['Confirmed', dateTime(c.confirmedAt)],
      // Only a change still under way can expire.
      .../** @type {[string, string][]} */ (
        OPEN(c) && c.expiresAt ? [['Expires', dateTime(c.expiresAt)]] : []
      ),
      ...moneyRows(c),
      ['Outcome', c.outcome ? label(c.outcome.status ?? c.outcome) : 'In progress'],
      [
        'Location',
        c.location?.to && c.location.to !== c.location.from
          ? `${c.location.from} to ${c.location.to}${c.location.addressChanged ? ' (the public IP address changes)' : ''}`
          : (c.location?.from ?? '—'),
      ],
    ]),
    c.final && !NOTHING_BILLED(c) ? finalTable(c) : '',
    c.final?.explanation ? h('p', {}, c.final.explanation) : '',
    c.recovery ? h('p', {}, c.recovery) : '',
    h(
      'details',
      {},
      h('summary', {}, 'History'),
      h(
        'ol',
        {},
        ...c.history.map((/** @type {any} */ e) => h('li', {}, `${dateTime(e.at)}: ${label(e.status)}`)),
      ),
    ),
    c.cancellable ? cancelControl(c, plans, stack) : '',
  );
