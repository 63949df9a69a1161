// Plans and checkout (with a refusal for capacity, the Plans that fit and the waitlist), and
// closing an account that never paid.
import { ApiError, api } from '../api.js';
import { dateTime, h, label, money } from '../dom.js';
import { button, caps, dl, form, planName, poll, resources, route, say, screen } from '../ui.js';

const planCard = (
  /** @type {any} */ plan,
  /** @type {Node[]} */ actions,
  /** @type {boolean} */ waitingFor = false,
) =>
  h(
    'section',
    { class: 'card', 'aria-label': plan.name },
    h('h3', {}, `${plan.name}: ${money(plan.monthlyPrice)} a month`),
    dl([
      ['Resources', resources(plan.resources)],
      ['Caps', caps(plan)],
      [
        'Capacity',
        h(
          'span',
          { 'data-capacity': plan.value },
          plan.placeable
            ? 'Available now'
            : waitingFor
              ? 'Full: you are on its waitlist'
              : 'Full: join the waitlist',
        ),
      ],
    ]),
    ...actions,
  );

export const plansScreen = async (/** @type {any} */ me) => {
  const { plans } = await api('GET', '/v1/billing/plans');
  /** Each Plan card's actions: a refusal of its checkout is shown there, where its button was. */
  /** @type {Record<string, HTMLElement>} */
  const slots = {};
  /** The Plans the tenant already waits for (the API's, so a reload shows them), by Plan. */
  /** @type {Map<string, any>} */
  const waiting = new Map((me.waitlist ?? []).map((/** @type {any} */ e) => [e.plan, e]));
  /** What the tenant is told of its place on the waitlist of a Plan. */
  const joined = (/** @type {any} */ entry) =>
    h(
      'p',
      { class: 'ok', 'data-waitlist': entry.plan },
      `You are on the waitlist for ${planName(plans, entry.plan)} in ${entry.homeRegion} since ${dateTime(entry.joinedAt)}. ${
        entry.notified
          ? 'We emailed you that it could be placed; nothing is charged until you subscribe.'
          : 'We email you once, when it can be placed; nothing is charged until you subscribe.'
      }`,
    );
  /** The waitlist join for `plan`, or the place already taken (joining again answers the same entry). */
  const waitlist = (/** @type {string} */ plan) => {
    const place = h('div', { class: 'waitlist' });
    const entry = waiting.get(plan);
    if (entry) {
      place.append(joined(entry));
      return place;
    }
    place.append(
      button(`Join the waitlist for ${planName(plans, plan)}`, async () => {
        const stored = await api('POST', '/v1/billing/waitlist', { plan });
        waiting.set(stored.plan, stored);
        place.replaceChildren(joined(stored));
        say(`You joined the waitlist for ${planName(plans, stored.plan)}.`);
      }),
    );
    return place;
  };
  const checkout = async (/** @type {string} */ plan) => {
    const slot = slots[plan];
    try {
      const { url } = await api('POST', '/v1/billing/checkout', { plan });
      location.assign(url);
    } catch (error) {
      if (!(slot && error instanceof ApiError && error.body?.reason === 'no_capacity')) throw error;
      // Never a substitute: the tenant picks one of the Plans that fit, or joins the waitlist.
      const fit = plans.filter(
        (/** @type {any} */ p) => p.value !== plan && error.body.availablePlans?.includes(p.value),
      );
      const refusal = h(
        'div',
        { class: 'refusal', role: 'alert', tabindex: '-1' },
        h('p', {}, h('strong', {}, `${planName(plans, plan)} cannot be bought now: `)),
        h(
          'p',
          {},
          `there is no room for it in your Home Region (${me.homeRegion}) at the moment. Nothing was charged.`,
        ),
      );
      // The list was read before the place went: the card now says what the refusal said.
      const shown = document.querySelector(`[data-capacity="${plan}"]`);
      if (shown) shown.textContent = 'Full: join the waitlist';
      slot.replaceChildren(
        refusal,
        fit.length
          ? h(
              'div',
              {},
              h('p', { id: `fit-${plan}` }, 'These Plans fit now:'),
              h(
                'ul',
                { 'aria-labelledby': `fit-${plan}`, class: 'fit' },
                ...fit.map((/** @type {any} */ p) =>
                  h(
                    'li',
                    {},
                    button(`Subscribe to ${p.name} instead (${money(p.monthlyPrice)} a month)`, () =>
                      checkout(p.value),
                    ),
                  ),
                ),
              ),
            )
          : h('p', {}, 'No Plan fits in your Home Region now.'),
        h('p', {}, `Or wait for ${planName(plans, plan)}:`),
        waitlist(plan),
      );
      refusal.focus();
    }
  };
  const params = new URLSearchParams(location.search);
  const done = params.get('checkout');
  screen(
    'Plans',
    done === 'complete'
      ? h('p', { class: 'ok' }, 'Payment received. Your account becomes active in a moment.')
      : h('p', {}, `Signed in as ${me.user.login}; your Home Region is ${me.homeRegion}.`),
    done === 'cancelled' ? h('p', {}, 'The checkout was cancelled: nothing was charged.') : '',
    h(
      'div',
      { class: 'plans' },
      ...plans.map((/** @type {any} */ plan) => {
        slots[plan.value] = h(
          'div',
          { class: 'actions' },
          ...(plan.placeable
            ? [
                button(`Subscribe to ${plan.name}`, () => checkout(plan.value)),
                // Waited for, and there is room now: the place on the waitlist is still said.
                waiting.has(plan.value) ? waitlist(plan.value) : '',
              ]
            : [waitlist(plan.value)]),
        );
        return planCard(plan, [slots[plan.value]], waiting.has(plan.value));
      }),
    ),
    done === 'complete' ? '' : closeSection(me),
  );
  if (params.get('checkout') === 'complete')
    poll(async () => (await api('GET', '/v1/me')).billingState !== 'provisioning', route);
};

/** Closing an account that never paid: typed confirmation (the slug), then the sweep closes it. */
const closeSection = (/** @type {any} */ me) =>
  h(
    'section',
    { class: 'card', 'aria-label': 'Close this account' },
    h('h3', {}, 'Close this account'),
    h(
      'p',
      {},
      'An account that never paid can be closed now: an open checkout can no longer be paid, nothing is charged, and the slug stays taken (it cannot be used again). This cannot be undone.',
    ),
    form(
      'Close this account',
      [
        label(
          `Type your slug, ${me.slug}, to confirm`,
          h('input', { name: 'confirm', id: 'close-confirm', required: '', autocomplete: 'off' }),
        ),
      ],
      'Close the account',
      async (data) => {
        if (String(data.get('confirm')).trim() !== me.slug)
          throw new Error(`Type ${me.slug} exactly to close the account; nothing was changed.`);
        await api('POST', '/v1/tenant/close');
        say('The account is closing.');
        // The same screen a reload shows: `closeRequestedAt` is set until the sweep closes it.
        await route();
      },
    ),
  );

/**
 * A close asked for that the sweep has not carried out yet (`closeRequestedAt`, still
 * provisioning): says so and follows it to Account & Billing, after a reload too.
 */
export const closingScreen = (/** @type {any} */ me) => {
  screen(
    'Closing your account',
    h(
      'p',
      { class: 'ok' },
      'Your account is being closed; nothing was charged. This page moves on by itself in a minute at most.',
    ),
    h(
      'p',
      {},
      `You asked to close ${me.slug} on ${dateTime(me.closeRequestedAt)}. An open checkout can no longer be paid; the slug stays taken.`,
    ),
  );
  poll(
    async () => (await api('GET', '/v1/me')).billingState !== 'provisioning',
    () => {
      if (location.hash === '#/account') return route();
      location.hash = '#/account';
    },
  );
};
