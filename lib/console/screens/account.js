// Account & Billing: the billing state, the portal or the closing card, the money-back guarantee,
// the price lock and the billing history.
import { api } from '../api.js';
import { dateTime, h, label, money } from '../dom.js';
import { button, dl, planName, screen, table } from '../ui.js';
import { mayChangePlanOf, planChangeEntry } from './stacks.js';

/** Why a leaving tenant leaves, in the tenant's words (the history's reasons). */
const LEFT_BECAUSE = {
  cancelled_in_portal: 'You cancelled the subscription in the billing portal.',
  refund_granted: 'Your money-back refund was granted: the subscription ended at once.',
  closed_by_tenant: 'You closed the account before paying for it: nothing was charged.',
  suspended_grace_elapsed: 'The payment owed was not made before the end of both grace periods.',
  cancelled_by_operator: 'The subscription was cancelled by the operator.',
  cancelled_after_failed_payments: 'The subscription ended after its payments failed.',
  cancelled_payment_disputed: 'The subscription ended after a payment was disputed.',
};

/** What a leaving (`decommissioning`) tenant is told: why, until when, and what it may still do. */
const closingCard = (/** @type {any} */ closing, /** @type {any[]} */ stacks) => {
  const until = closing.teardownAt ? dateTime(closing.teardownAt) : 'the teardown';
  const standing = stacks.filter((s) => s.lifecycle !== 'torn_down');
  const exportable = !closing.tornDown && standing.length > 0;
  return h(
    'section',
    { class: 'card closing', 'aria-label': 'This account is closing' },
    h('h3', {}, 'This account is closing'),
    h('p', {}, LEFT_BECAUSE[/** @type {keyof LEFT_BECAUSE} */ (closing.reason)] ?? label(closing.reason)),
    dl([
      [
        'Stacks',
        stacks.length === 0
          ? 'None: the account never had a Stack'
          : closing.tornDown || standing.length === 0
            ? 'Torn down'
            : closing.stacksServeUntilTeardown
              ? `Keep serving until ${until}, the end of the paid period; then they are torn down`
              : `Take no new work; torn down on ${until}`,
      ],
      [
        'Billing',
        closing.billingStopped
          ? 'Stopped: nothing more is charged'
          : `Paid through ${until}: nothing is charged after that`,
      ],
    ]),
    h('h4', {}, 'What you can still do'),
    h(
      'ul',
      {},
      h('li', {}, 'Sign in, and read this page and the billing history.'),
      exportable
        ? h(
            'li',
            {},
            h('a', { href: '#/export' }, 'Export your data'),
            ` from each Stack until ${until} (the teardown).`,
          )
        : h('li', {}, 'Nothing is left to export.'),
    ),
    h(
      'p',
      {},
      'Nothing new can be bought or changed: no checkout, billing portal, waitlist, added Stack or Plan Change. Closing is final.',
    ),
  );
};

/** The Founding Price Lock in one line: held on how many Stacks, and the locks that ended. */
const priceLockText = (/** @type {any} */ lock) => {
  const ended = lock.ended ?? [];
  /** @type {string[]} */
  const parts = [];
  if (lock.lockedStacks > 0) parts.push(`Founding price locked on ${lock.lockedStacks} Stack(s)`);
  if (ended.length) {
    const last = ended.reduce((/** @type {any} */ a, /** @type {any} */ b) =>
      a.endedAt > b.endedAt ? a : b,
    );
    parts.push(
      `Founding price lock ended on ${ended.length} Stack(s) (last ${dateTime(last.endedAt)}: ${label(last.reason)})`,
    );
  }
  if (!parts.length) return lock.founding ? 'Founding price lock: none held now' : 'No price lock';
  return parts.join('; ');
};

/** The money-back guarantee: open (until when, where to write), used (what was refunded), or why not. */
const moneyBackCard = (/** @type {any} */ mb, /** @type {boolean} */ leaving) => {
  const used = mb.used;
  let state;
  if (used)
    state = `Used: asked on ${dateTime(used.requestedAt)}${used.grantedAt ? `, granted on ${dateTime(used.grantedAt)}` : ''}; ${money({ amount: used.refundedAmount, currency: used.currency })} refunded in ${used.refunds} refund(s).`;
  else if (mb.available)
    state = `You may ask for a full refund until ${dateTime(mb.windowEndsAt)} (your local time).`;
  else if (leaving) state = 'Not available: this account is closing.';
  else if (mb.windowEndsAt) state = `Not available: the window ended on ${dateTime(mb.windowEndsAt)}.`;
  else state = 'Not open yet: the 14-day window opens with your first payment.';
  return h(
    'section',
    { class: 'card', 'aria-label': 'Money-back guarantee' },
    h('h3', {}, 'Money-back guarantee'),
    h('p', {}, state),
    ...(mb.available
      ? [
          h(
            'p',
            {},
            'Write to ',
            h('a', { href: `mailto:${mb.supportEmail}` }, mb.supportEmail),
            ' from your account’s address, with your slug.',
          ),
          h('p', {}, h('strong', {}, 'Before you ask: '), mb.reminder),
        ]
      : [h('p', {}, 'Questions: ', h('a', { href: `mailto:${mb.supportEmail}` }, mb.supportEmail), '.')]),
  );
};

export const accountScreen = async (/** @type {any} */ me) => {
  const billing = await api('GET', '/v1/billing/status');
  const leaving = billing.billingState === 'decommissioning';
  // The Plan Change flow starts here too (Account & Billing, then Preview Change, then the
  // confirmation), for the Stacks a change may start on; hidden while any release gate is down.
  const offerChanges = !leaving && Boolean(me.planChangeControls?.visible);
  const [stacks, plans] = await Promise.all([
    leaving || offerChanges ? api('GET', '/v1/stacks').then((/** @type {any} */ d) => d.stacks) : [],
    offerChanges ? api('GET', '/v1/billing/plans').then((/** @type {any} */ d) => d.plans) : [],
  ]);
  const changeable = offerChanges ? stacks.filter((/** @type {any} */ s) => mayChangePlanOf(s, me)) : [];
  const portal = button('Open the billing portal', async () => {
    const { url } = await api('POST', '/v1/billing/portal');
    location.assign(url);
  });
  screen(
    'Account & Billing',
    dl([
      ['Account', `${me.slug ?? '(no slug yet)'} (${me.user.login}, ${me.role})`],
      ['Billing state', label(billing.billingState)],
      [
        'Grace deadline',
        billing.graceDeadline
          ? `${dateTime(billing.graceDeadline)} (your local time): pay before then to keep your Stacks`
          : 'None',
      ],
      ['Price lock', priceLockText(billing.priceLock)],
    ]),
    leaving
      ? closingCard(billing.closing ?? {}, stacks)
      : h(
          'section',
          { class: 'card', 'aria-label': 'Payment method and cancelling' },
          h('h3', {}, 'Payment method and cancelling'),
          h(
            'p',
            {},
            'The billing portal is the payment processor’s page: there you replace your card or cancel the subscription. A cancel takes effect at the end of the paid period; your Stacks serve until then.',
          ),
          h('p', {}, portal),
        ),
    changeable.length
      ? h(
          'section',
          { class: 'card', 'aria-label': 'Change a Stack’s Plan' },
          h('h3', {}, 'Change a Stack’s Plan'),
          h(
            'p',
            {},
            'Preview a change first: you see both Plans, the estimated next invoice and the adjustment before you confirm. Your billing-cycle date stays.',
          ),
          ...changeable.map((/** @type {any} */ s) =>
            h(
              'div',
              { class: 'plan-change-entry' },
              h('h4', {}, `${s.name}: ${planName(plans, s.plan)} now`),
              planChangeEntry(s, plans),
            ),
          ),
        )
      : '',
    moneyBackCard(billing.moneyBack, leaving),
    h('h3', {}, 'Billing history'),
    billing.history.length
      ? table(
          'Changes of billing state, newest last',
          ['When', 'From', 'To', 'Why'],
          billing.history.map((/** @type {any} */ e) => [
            dateTime(e.at),
            label(e.from),
            label(e.to),
            label(e.reason),
          ]),
        )
      : h('p', {}, 'No changes yet.'),
  );
};
