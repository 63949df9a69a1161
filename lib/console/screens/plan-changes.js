// Plan Changes: progress and history, from the API each time (so it survives reload and sign-in).
import { api } from '../api.js';
import { dateTime, h, label, money } from '../dom.js';
import { button, dl, planName, poll, route, screen } from '../ui.js';
import { changeOnNextInvoice } from './stacks.js';

const OPEN = (/** @type {any} */ c) =>
  !c.outcome && !['completed', 'cancelled', 'expired', 'rolled_back', 'failed'].includes(c.status);

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
      c.estimate ? changeOnNextInvoice(c.estimate) : ['Estimated change to your next invoice', '—'],
      [
        'Final adjustment',
        c.final
          ? money({
              amount: c.final.adjustment ?? c.final.amount,
              currency: c.final.currency ?? c.estimate?.currency,
            })
          : 'Not billed yet',
      ],
      ['Outcome', c.outcome ? label(c.outcome.status ?? c.outcome) : 'In progress'],
      [
        'Location',
        c.location?.to && c.location.to !== c.location.from
          ? `${c.location.from} to ${c.location.to}${c.location.addressChanged ? ' (the public IP address changes)' : ''}`
          : (c.location?.from ?? '—'),
      ],
    ]),
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
    c.cancellable
      ? button(
          'Cancel this Plan Change',
          async () => {
            await api('POST', `/v1/plan-changes/${c.changeId}/cancel`);
            await route();
          },
          'secondary',
        )
      : '',
  );
