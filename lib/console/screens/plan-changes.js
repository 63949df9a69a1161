// Plan Changes: progress and history, from the API each time (so it survives reload and sign-in).
import { api } from '../api.js';
import { dateTime, h, label, money } from '../dom.js';
import { button, dl, planName, poll, route, screen } from '../ui.js';

const OPEN = (/** @type {any} */ c) =>
  !c.outcome && !['completed', 'cancelled', 'expired', 'rolled_back', 'failed'].includes(c.status);

export const planChangesScreen = async (/** @type {any} */ me) => {
  const { planChanges } = await api('GET', '/v1/plan-changes');
  const { plans } = await api('GET', '/v1/billing/plans');
  screen(
    'Plan Changes',
    planChanges.some(OPEN) ? h('p', {}, 'A change is under way: this page follows it by itself.') : '',
    planChanges.length
      ? h('div', {}, ...planChanges.map((/** @type {any} */ c) => changeCard(c, plans)))
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

const changeCard = (/** @type {any} */ c, /** @type {any[]} */ plans) =>
  h(
    'section',
    { class: 'card', 'aria-label': `Plan Change ${c.changeId}` },
    h('h3', {}, `${planName(plans, c.currentPlan)} to ${planName(plans, c.requestedPlan)}`),
    dl([
      ['Status', h('span', { 'data-status': c.status }, label(c.status))],
      ['Confirmed', dateTime(c.confirmedAt)],
      ['Expires', c.expiresAt ? dateTime(c.expiresAt) : '—'],
      [
        'Estimated adjustment',
        c.estimate ? money({ amount: c.estimate.adjustment, currency: c.estimate.currency }) : '—',
      ],
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
