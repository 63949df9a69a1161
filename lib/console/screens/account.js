// Account & Billing: the billing state, what is paid now and next and with which card, the invoices,
// the portal or the closing card, the money-back guarantee, the price lock and the billing history.
import { api } from '../api.js';
import { count, dateTime, day, h, label, money } from '../dom.js';
import { amountText, button, dl, errorBox, planName, screen, table } from '../ui.js';
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

/** Why the billing state changed, in the tenant's words (the history's `reason`). */
const HISTORY_WORDS = {
  checkout_completed: 'The first payment was made: the subscription started.',
  payment_failed: 'A payment failed: pay within the grace period to keep your Stacks.',
  past_due_grace_elapsed: 'The payment was still not made after 7 days: the Stacks were suspended.',
  suspended_grace_elapsed: 'The payment was not made before the end of both grace periods.',
  payment_recovered: 'The payment owed was made: everything is back to normal.',
  cancelled_in_portal: 'You cancelled the subscription in the billing portal.',
  cancelled_by_operator: 'The subscription was cancelled by the operator.',
  cancelled_after_failed_payments: 'The subscription ended after its payments failed.',
  cancelled_payment_disputed: 'The subscription ended after a payment was disputed.',
  refund_granted: 'Your money-back refund was granted: the subscription ended at once.',
  closed_by_tenant: 'You closed the account before paying for it.',
};

/** A billing state in words. */
const STATE_WORDS = {
  provisioning: 'Not paid yet',
  active: 'Active',
  'past-due': 'Past due',
  suspended: 'Suspended',
  decommissioning: 'Closing',
};

const stateWords = (/** @type {string} */ state) =>
  STATE_WORDS[/** @type {keyof STATE_WORDS} */ (state)] ?? label(state);

/** The billing state, marked: its words, its colour (a state that asks for a payment is red). */
const stateMark = (/** @type {string} */ state) =>
  h(
    'strong',
    {
      class: `state ${state === 'past-due' || state === 'suspended' ? 'state-bad' : state === 'active' ? 'state-good' : ''}`,
      'data-billing-state': state,
    },
    stateWords(state),
  );

/** From one day to another, as every date of this page is written. */
const days = (/** @type {string} */ from, /** @type {string} */ to) => `${day(from)} to ${day(to)}`;

/**
 * An invoice line in words, with its days: a Stack's line is a month of its Plan; a proration
 * (a Stack added, a Plan changed) is a credit or a charge for the days left in the period.
 */
const lineText = (/** @type {any} */ line) =>
  line.proration
    ? `${line.item}, ${days(line.periodStart, line.periodEnd)}`
    : `${line.item}: a month, ${days(line.periodStart, line.periodEnd)}`;

/** What a Stack is billed a month (`, $40.00 a month`): its founding price while locked, else its Plan's. */
const monthlyPriceOf = (/** @type {any} */ stack, /** @type {any[]} */ plans) => {
  const locked = stack.priceLock?.state === 'locked' ? stack.priceLock.monthlyPrice : undefined;
  const price = locked ?? plans.find((p) => p.value === stack.plan)?.monthlyPrice;
  return price ? `, ${money(price)} a month${locked ? ' (founding price, locked)' : ''}` : '';
};

/** What a proration is, under an invoice that has one. */
const PRORATION_WORDS =
  'A Stack added or a Plan changed during a billing period is billed for the days left in it: a credit gives back the unused days at what the Stacks were billed at, a charge bills the same days at what they are billed at now. Both come on the next invoice; nothing is charged at the time of the change.';

/** An amount of an invoice in its currency. */
const amount = (/** @type {number} */ minor, /** @type {string} */ currency) =>
  money({ amount: minor, currency });

/** An invoice's lines and totals: one row per Stack and Plan, then discount, tax, credit and total. */
const invoiceTable = (/** @type {string} */ caption, /** @type {any} */ invoice) => {
  const c = invoice.currency;
  const rows = invoice.lines.map((/** @type {any} */ line) => [
    lineText(line),
    amount(line.amount, c),
    line.discount ? `−${amount(line.discount, c)}` : '—',
    line.tax ? amount(line.tax, c) : '—',
  ]);
  /** @type {[string, string][]} */
  const totals = [
    ['Subtotal', amount(invoice.subtotal, c)],
    ...(invoice.discount
      ? /** @type {[string, string][]} */ ([['Discount', `−${amount(invoice.discount, c)}`]])
      : []),
    ['Tax', amount(invoice.tax, c)],
    ...(invoice.creditApplied
      ? /** @type {[string, string][]} */ ([['Credit used', `−${amount(invoice.creditApplied, c)}`]])
      : []),
    ['Total', amount(invoice.total - (invoice.creditApplied ?? 0), c)],
  ];
  return h(
    'div',
    { class: 'invoice' },
    table(caption, ['What', 'Amount', 'Discount', 'Tax'], rows, [1, 2, 3]),
    dl(totals.map(([term, value]) => [term, amountText(value)])),
    invoice.lines.some((/** @type {any} */ line) => line.proration)
      ? h('p', { class: 'muted' }, PRORATION_WORDS)
      : '',
  );
};

/** What the tenant pays: this period's invoice, the next one, and the card on file. */
const payingCard = (/** @type {any} */ summary) => {
  const { currentInvoice: current, nextInvoice: next, paymentMethod: card } = summary;
  return h(
    'section',
    { class: 'card', 'aria-label': 'What you pay' },
    h('h3', {}, 'What you pay'),
    current
      ? invoiceTable(
          `This period (invoice ${current.number ?? ''} of ${day(current.issuedAt)}: ${current.statusText})`,
          current,
        )
      : h('p', {}, 'No invoice yet.'),
    h('h4', {}, 'Next invoice'),
    next
      ? h(
          'div',
          {},
          h(
            'p',
            { 'data-next-invoice': '' },
            `On ${next.invoiceAt ? day(next.invoiceAt) : 'the next billing date'}, an estimated ${amount(next.amountDue, next.currency)} will be charged.`,
          ),
          invoiceTable('The next invoice as the payment processor estimates it now', next),
        )
      : h('p', {}, 'None: nothing more will be charged.'),
    h('h4', {}, 'Payment method'),
    h(
      'p',
      { 'data-payment-method': '' },
      card
        ? `${card.brand.charAt(0).toUpperCase()}${card.brand.slice(1)} ending in ${card.last4}, expires ${String(card.expMonth).padStart(2, '0')}/${card.expYear}. You change it in the billing portal.`
        : 'None on file.',
    ),
  );
};

/** An invoice's status with what was refunded and what credit it used, in words. */
const invoiceStatusText = (/** @type {any} */ invoice) => {
  const parts = [invoice.statusText];
  if (invoice.refunded) parts.push(`${amount(invoice.refunded, invoice.currency)} refunded`);
  if (invoice.creditApplied) parts.push(`${amount(invoice.creditApplied, invoice.currency)} of credit used`);
  return parts.join('; ');
};

/** The invoices paid and owed, newest first, a page at a time, each with its page and PDF (our links). */
const invoicesCard = async () => {
  const section = h('section', { class: 'card', 'aria-label': 'Invoices' }, h('h3', {}, 'Invoices'));
  /** @type {any[]} */
  const shown = [];
  const body = h('div', {});
  section.append(body);
  /** @param {string | null} cursor */
  const load = async (cursor) => {
    const page = await api(
      'GET',
      `/v1/billing/invoices?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    shown.push(...page.invoices);
    const rows = shown.map((/** @type {any} */ invoice) => [
      day(invoice.issuedAt),
      invoice.number ?? '—',
      amount(invoice.total, invoice.currency),
      invoiceStatusText(invoice),
      h(
        'span',
        {},
        invoice.viewUrl
          ? h('a', { href: invoice.viewUrl, rel: 'noopener' }, `View invoice ${invoice.number ?? ''}`)
          : '—',
        ...(invoice.pdfUrl
          ? [' · ', h('a', { href: invoice.pdfUrl, rel: 'noopener' }, `PDF of ${invoice.number}`)]
          : []),
      ),
    ]);
    body.replaceChildren(
      shown.length
        ? table('Your invoices, newest first', ['Date', 'Number', 'Amount', 'Status', 'Invoice'], rows, [2])
        : h('p', {}, 'No invoices yet.'),
      ...(page.next
        ? [
            h(
              'p',
              {},
              button('Show older invoices', () => load(page.next)),
            ),
          ]
        : []),
    );
  };
  await load(null);
  return section;
};

/** A part of the screen that the processor answers: its error in place of it, the rest still shown. */
const orError = async (/** @type {() => Promise<Node>} */ draw, /** @type {string} */ what) => {
  try {
    return await draw();
  } catch (error) {
    return h('section', { class: 'card', 'aria-label': what }, h('h3', {}, what), errorBox(error));
  }
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
  if (lock.lockedStacks > 0) parts.push(`Founding price locked on ${count(lock.lockedStacks, 'Stack')}`);
  if (ended.length) {
    const last = ended.reduce((/** @type {any} */ a, /** @type {any} */ b) =>
      a.endedAt > b.endedAt ? a : b,
    );
    parts.push(
      `Founding price lock ended on ${count(ended.length, 'Stack')} (last ${dateTime(last.endedAt)}: ${label(last.reason)})`,
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
    state = `Used: asked on ${dateTime(used.requestedAt)}${used.grantedAt ? `, granted on ${dateTime(used.grantedAt)}` : ''}; ${money({ amount: used.refundedAmount, currency: used.currency })} refunded in ${count(used.refunds, 'refund')}.`;
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

/** Opens the processor's billing portal (the card, a cancel); it returns to the console. */
const openPortal = async () => {
  const { url } = await api('POST', '/v1/billing/portal');
  location.assign(url);
};

/**
 * After a failed payment (`past-due`, then `suspended`), the first thing on the page: what is owed,
 * until when, what happens then, and how to pay, with the portal's button next to the deadline.
 */
const owedCard = (/** @type {any} */ billing, /** @type {any} */ summary) => {
  const suspended = billing.billingState === 'suspended';
  const title = suspended ? 'Your Stacks are suspended' : 'Your payment failed';
  const invoice = summary?.currentInvoice?.status === 'open' ? summary.currentInvoice : null;
  const what = invoice
    ? `The payment of ${amount(invoice.amountDue, invoice.currency)}${invoice.number ? ` for invoice ${invoice.number}` : ''}`
    : 'A payment';
  const until = billing.graceDeadline
    ? `before ${dateTime(billing.graceDeadline)} (your local time)`
    : 'as soon as you can';
  return h(
    'section',
    { class: 'card owed', 'aria-label': title },
    h('h3', {}, title),
    h(
      'p',
      {},
      suspended
        ? `${what} failed and was not made within the 7 days of grace. Pay it ${until} to have your Stacks back; after that the account closes and the Stacks are torn down.`
        : `${what} failed. Pay it ${until} to keep your Stacks running; after that they are suspended.`,
    ),
    h(
      'p',
      {},
      'To pay, open the billing portal and update your card: the payment owed is taken from the new card, and your account is active again within a few minutes.',
    ),
    h('p', {}, button('Open the billing portal to pay', openPortal)),
  );
};

export const accountScreen = async (/** @type {any} */ me) => {
  const billing = await api('GET', '/v1/billing/status');
  const leaving = billing.billingState === 'decommissioning';
  // The Plan Change flow starts here too (Account & Billing, then Preview Change, then the
  // confirmation), for the Stacks a change may start on; hidden while any release gate is down.
  const offerChanges = !leaving && Boolean(me.planChangeControls?.visible);
  const [stacks, plans, summary, invoices] = await Promise.all([
    leaving || offerChanges ? api('GET', '/v1/stacks').then((/** @type {any} */ d) => d.stacks) : [],
    offerChanges ? api('GET', '/v1/billing/plans').then((/** @type {any} */ d) => d.plans) : [],
    // A processor that does not answer: its error in place of the card, the rest still shown.
    api('GET', '/v1/billing/summary').catch((/** @type {unknown} */ error) => ({ error })),
    orError(invoicesCard, 'Invoices'),
  ]);
  const paying = await orError(async () => {
    if (summary.error) throw summary.error;
    return payingCard(summary);
  }, 'What you pay');
  const owed = billing.billingState === 'past-due' || billing.billingState === 'suspended';
  const changeable = offerChanges ? stacks.filter((/** @type {any} */ s) => mayChangePlanOf(s, me)) : [];
  const portal = button('Open the billing portal', openPortal);
  screen(
    'Account & Billing',
    owed ? owedCard(billing, summary) : '',
    dl([
      ['Account', `${me.slug ?? '(no slug yet)'} (${me.user.login}, ${me.role})`],
      ['Billing state', stateMark(billing.billingState)],
      [
        'Grace deadline',
        billing.graceDeadline
          ? `${dateTime(billing.graceDeadline)} (your local time): pay before then, by updating your card in the billing portal, to keep your Stacks`
          : 'None',
      ],
      ['Price lock', priceLockText(billing.priceLock)],
    ]),
    paying,
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
              h('h4', {}, `${s.name}: ${planName(plans, s.plan)} now${monthlyPriceOf(s, plans)}`),
              planChangeEntry(s, plans),
            ),
          ),
        )
      : '',
    invoices,
    moneyBackCard(billing.moneyBack, leaving),
    h('h3', {}, 'Billing history'),
    billing.history.length
      ? table(
          'Changes of billing state, newest first',
          ['When', 'From', 'To', 'Why'],
          [...billing.history]
            .reverse()
            .map((/** @type {any} */ e) => [
              dateTime(e.at),
              stateWords(e.from),
              stateWords(e.to),
              HISTORY_WORDS[/** @type {keyof HISTORY_WORDS} */ (e.reason)] ?? label(e.reason),
            ]),
        )
      : h('p', {}, 'No changes yet.'),
  );
};
