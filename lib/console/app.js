// The tenant console: plain ES modules over the public API (docs/api/openapi.json), same site as
// the API so the session cookie authenticates every call. Built from DOM nodes (never innerHTML).
import { ApiError, api } from './api.js';
import { dateTime, h, label, money } from './dom.js';

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
const navLinks = /** @type {HTMLElement} */ (document.getElementById('nav-links'));
const status = /** @type {HTMLElement} */ (document.getElementById('status'));

/** @type {number | undefined} */
let pollTimer;

const say = (/** @type {string} */ text) => {
  status.textContent = text;
};

/** Replaces the screen: its heading first, focused so a keyboard or screen reader user lands there. */
const screen = (/** @type {string} */ title, /** @type {(Node|string)[]} */ ...children) => {
  const heading = h('h2', { tabindex: '-1' }, title);
  main.replaceChildren(heading, ...children);
  document.title = `${title} · Stack Control Plane`;
  heading.focus();
};

const errorBox = (/** @type {unknown} */ error) =>
  h(
    'p',
    { class: 'error', role: 'alert' },
    `Error: ${error instanceof Error ? error.message : String(error)}`,
  );

/** A form whose submit runs `action`; its errors are shown inside it, in words. */
const form = (
  /** @type {string} */ name,
  /** @type {(Node|string)[]} */ fields,
  /** @type {string} */ submit,
  /** @type {(data: FormData, form: HTMLFormElement) => Promise<void>} */ action,
) => {
  const out = h('div', {});
  const element = /** @type {HTMLFormElement} */ (
    h('form', { 'aria-label': name }, ...fields, h('p', {}, h('button', { type: 'submit' }, submit)), out)
  );
  element.addEventListener('submit', async (event) => {
    event.preventDefault();
    out.replaceChildren();
    const button = element.querySelector('button[type=submit]');
    button?.setAttribute('disabled', '');
    try {
      await action(new FormData(element), element);
    } catch (error) {
      out.replaceChildren(errorBox(error));
    } finally {
      button?.removeAttribute('disabled');
    }
  });
  return element;
};

const button = (
  /** @type {string} */ text,
  /** @type {() => Promise<void> | void} */ onClick,
  /** @type {string} */ kind = '',
) => {
  const element = h('button', { type: 'button', ...(kind ? { class: kind } : {}) }, text);
  element.addEventListener('click', async () => {
    element.setAttribute('disabled', '');
    try {
      await onClick();
    } catch (error) {
      element.after(errorBox(error));
    } finally {
      element.removeAttribute('disabled');
    }
  });
  return element;
};

const dl = (/** @type {[string, Node|string][]} */ rows) =>
  h('dl', {}, ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));

const resources = (/** @type {any} */ r) =>
  `${r.vcpu} ${r.vcpuKind} vCPU, ${r.memoryGb} GB memory, ${r.storageGb} GB storage`;
const caps = (/** @type {any} */ c) =>
  `${c.runCap} runs at once, ${c.reserveCap} in reserve, ${c.watchedProjectsCap} watched Projects`;

// ---------------------------------------------------------------------------------------------
// Signed out: the code host's sign-in, and locally the sign-in shortcut of `npm start`.

const signInScreen = async () => {
  nav.hidden = true;
  const children = [
    h('p', {}, 'Sign in with your code-host account to buy and manage Stacks.'),
    h('p', {}, h('a', { href: '/v1/auth/sign-in' }, 'Sign in with the code host')),
  ];
  const local = await fetch('/_local/clock').then(
    (r) => r.ok,
    () => false,
  );
  if (local)
    children.push(
      form(
        'Local sign-in',
        [
          h('h3', {}, 'Local sign-in (npm start only)'),
          label(
            'Code-host login',
            h('input', { name: 'login', id: 'login', required: '', autocomplete: 'username' }),
          ),
        ],
        'Sign in locally',
        async (data) => {
          await api('POST', '/_local/sign-in', { login: String(data.get('login')) });
          await route();
        },
      ),
    );
  screen('Sign in', ...children);
};

// ---------------------------------------------------------------------------------------------
// The slug, then Plans and checkout.

const slugScreen = () =>
  screen(
    'Choose your slug',
    h('p', {}, 'The slug names your Stacks: <slug>.<stack domain>. It cannot be changed later.'),
    form(
      'Slug',
      [
        label(
          'Slug (3 to 40 lowercase letters, digits or hyphens)',
          h('input', { name: 'slug', id: 'slug', required: '', pattern: '[a-z](?:[a-z0-9-]*[a-z0-9])?' }),
        ),
      ],
      'Save slug',
      async (data) => {
        const saved = await api('POST', '/v1/tenant/slug', { slug: String(data.get('slug')) });
        say(`Your first Stack will be ${saved.stackName}.`);
        location.hash = '#/plans';
        await route();
      },
    ),
  );

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

const plansScreen = async (/** @type {any} */ me) => {
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
      `You are on the waitlist for ${label_(plans, entry.plan)} in ${entry.homeRegion} since ${dateTime(entry.joinedAt)}. ${
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
      button(`Join the waitlist for ${label_(plans, plan)}`, async () => {
        const stored = await api('POST', '/v1/billing/waitlist', { plan });
        waiting.set(stored.plan, stored);
        place.replaceChildren(joined(stored));
        say(`You joined the waitlist for ${label_(plans, stored.plan)}.`);
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
        h('p', {}, h('strong', {}, `${label_(plans, plan)} cannot be bought now: `)),
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
        h('p', {}, `Or wait for ${label_(plans, plan)}:`),
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

const label_ = (/** @type {any[]} */ plans, /** @type {string} */ value) =>
  plans.find((p) => p.value === value)?.name ?? value;

/** Re-runs `check` every 1.5 s while this screen is shown; `then` once it says done. */
const poll = (/** @type {() => Promise<boolean>} */ check, /** @type {() => unknown} */ then) => {
  const shown = location.hash;
  const tick = async () => {
    if (location.hash !== shown) return;
    try {
      if (await check()) return then();
    } catch (error) {
      // A session that ended (signed out elsewhere, or outlived by time travel): sign in again.
      if (error instanceof ApiError && error.status === 401) return route();
      // anything else: looked at again on the next tick
    }
    pollTimer = window.setTimeout(tick, 1500);
  };
  pollTimer = window.setTimeout(tick, 1500);
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
const closingScreen = (/** @type {any} */ me) => {
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

// ---------------------------------------------------------------------------------------------
// Account & Billing.

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

const accountScreen = async (/** @type {any} */ me) => {
  const billing = await api('GET', '/v1/billing/status');
  const leaving = billing.billingState === 'decommissioning';
  const stacks = leaving ? (await api('GET', '/v1/stacks')).stacks : [];
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
    moneyBackCard(billing.moneyBack, leaving),
    h('h3', {}, 'Billing history'),
    billing.history.length
      ? h(
          'table',
          {},
          h('caption', { class: 'muted' }, 'Changes of billing state, newest last'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', { scope: 'col' }, 'When'),
              h('th', { scope: 'col' }, 'From'),
              h('th', { scope: 'col' }, 'To'),
              h('th', { scope: 'col' }, 'Why'),
            ),
          ),
          h(
            'tbody',
            {},
            ...billing.history.map((/** @type {any} */ e) =>
              h(
                'tr',
                {},
                h('td', {}, dateTime(e.at)),
                h('td', {}, label(e.from)),
                h('td', {}, label(e.to)),
                h('td', {}, label(e.reason)),
              ),
            ),
          ),
        )
      : h('p', {}, 'No changes yet.'),
  );
};

// ---------------------------------------------------------------------------------------------
// Stacks, their Projects, adding a Stack with the estimate first, and the Plan Change preview.

const estimateTable = (/** @type {any} */ estimate) =>
  dl([
    ['Estimated next invoice', money({ amount: estimate.total, currency: estimate.currency })],
    ['Adjustment now', money({ amount: estimate.adjustment, currency: estimate.currency })],
    ['Discount', money({ amount: estimate.discount, currency: estimate.currency })],
    ['Tax', money({ amount: estimate.tax, currency: estimate.currency })],
    ['Invoice date', dateTime(estimate.invoiceAt)],
  ]);

const stacksScreen = async (/** @type {any} */ me) => {
  const [{ stacks }, { plans }] = await Promise.all([
    api('GET', '/v1/stacks'),
    api('GET', '/v1/billing/plans'),
  ]);
  const addOut = h('div', {});
  const options = plans.map((/** @type {any} */ p) =>
    h('option', { value: p.value }, `${p.name} (${money(p.monthlyPrice)} a month)`),
  );
  const leaving = me.billingState === 'decommissioning';
  screen(
    'Stacks',
    leaving ? leavingNote() : '',
    ...(await Promise.all(stacks.map((/** @type {any} */ s) => stackCard(s, plans, me)))),
    leaving
      ? ''
      : h(
          'section',
          { class: 'card', 'aria-label': 'Add a Stack' },
          h('h3', {}, 'Add a Stack'),
          form(
            'Add a Stack',
            [label('Plan', h('select', { name: 'plan', id: 'new-stack-plan' }, ...options))],
            'Preview the cost',
            async (data) => {
              const plan = String(data.get('plan'));
              const preview = await api('POST', '/v1/stacks/preview', { plan });
              addOut.replaceChildren(
                h(
                  'h4',
                  {},
                  `Adding a ${label_(plans, plan)} Stack at ${money(preview.monthlyPrice)} a month`,
                ),
                estimateTable(preview.estimate),
                button('Confirm and add the Stack', async () => {
                  const added = await api('POST', '/v1/stacks', { plan });
                  say(`Stack ${added.name} is being created.`);
                  await route();
                }),
              );
            },
          ),
          addOut,
        ),
  );
};

/**
 * Why a leaving tenant's Stacks screen offers no Add a Stack, Plan Change or new Project: the API
 * refuses them (`account_closing`; a decommissioning Stack takes no new Project).
 */
const leavingNote = () =>
  h(
    'section',
    { class: 'card closing', 'aria-label': 'Nothing new while closing' },
    h('h3', {}, 'Nothing new while the account closes'),
    h(
      'p',
      {},
      'This account is closing: no Stack can be added, no Plan changed and no Project added. Your Stacks are listed as they are.',
    ),
    h(
      'p',
      {},
      h('a', { href: '#/account' }, 'Account & Billing'),
      ' says why and until when your Stacks serve; ',
      h('a', { href: '#/export' }, 'export your data'),
      ' until the teardown.',
    ),
  );

const stackCard = async (/** @type {any} */ s, /** @type {any[]} */ plans, /** @type {any} */ me) => {
  const [{ projects, watchedProjectsCap }, credentials] = await Promise.all([
    api('GET', `/v1/stacks/${s.stackId}/projects`),
    // The Credentials a route may name; a Stack whose Credentials cannot be read offers none.
    api('GET', `/v1/credentials?stackId=${encodeURIComponent(s.stackId)}`).then(
      (/** @type {any} */ d) => d.credentials,
      () => [],
    ),
  ]);
  const change = h('div', {});
  const planOptions = plans
    .filter((p) => p.value !== s.plan)
    .map((p) => h('option', { value: p.value }, p.name));
  // What the API refuses is not offered: a Stack that is decommissioning or torn down takes no
  // new Project and changes no Plan (a `creating` Stack is running for the API); a leaving
  // account (`account_closing`) changes no Plan either.
  const running = s.lifecycle !== 'decommissioning' && s.lifecycle !== 'torn_down';
  const mayChangePlan = running && me.billingState !== 'decommissioning' && me.planChangeControls?.visible;
  return h(
    'section',
    { class: 'card', 'aria-label': `Stack ${s.name}` },
    h('h3', {}, s.name),
    dl([
      [
        'Plan',
        `${label_(plans, s.plan)}${s.priceLock?.state === 'locked' ? ` (price locked at ${money(s.priceLock.monthlyPrice)})` : ''}`,
      ],
      ['Caps', caps(s.caps)],
      ['Resources', resources(s.resources)],
      ['Location', s.location ?? 'Not placed yet'],
      ['State', label(s.lifecycle)],
      ['Health', `${label(s.health)}${s.lastReportAt ? `, last report ${dateTime(s.lastReportAt)}` : ''}`],
    ]),
    h('h4', {}, `Projects (${projects.length} of ${watchedProjectsCap} watched)`),
    projects.length
      ? h(
          'ul',
          { class: 'projects' },
          ...projects.map((/** @type {any} */ p) =>
            h('li', {}, h('span', {}, `${p.name} (${p.repository})`), routesEditor(s, p, credentials)),
          ),
        )
      : h('p', { class: 'muted' }, 'No Projects yet.'),
    !running
      ? h('p', { class: 'muted' }, `This Stack is ${label(s.lifecycle)}: no new Project can be added.`)
      : projects.length < watchedProjectsCap
        ? form(
            `Add a Project to ${s.name}`,
            [
              label('Project name', h('input', { name: 'name', id: `pn-${s.stackId}`, required: '' })),
              label(
                'Repository (owner/name)',
                h('input', { name: 'repository', id: `pr-${s.stackId}`, required: '' }),
              ),
            ],
            'Add Project',
            async (data) => {
              await api('POST', `/v1/stacks/${s.stackId}/projects`, {
                name: String(data.get('name')),
                repository: String(data.get('repository')),
              });
              await route();
            },
          )
        : h('p', {}, 'This Stack watches as many Projects as its Plan allows.'),
    mayChangePlan
      ? form(
          `Change the Plan of ${s.name}`,
          [label('New Plan', h('select', { name: 'plan', id: `pc-${s.stackId}` }, ...planOptions))],
          'Preview Change',
          async (data) => {
            const preview = await api('POST', `/v1/stacks/${s.stackId}/plan-changes/preview`, {
              plan: String(data.get('plan')),
            });
            change.replaceChildren(previewView(s, preview, plans));
          },
        )
      : '',
    change,
  );
};

/** The activities a Project Credential Route is set for (the Guide has its own selection). */
const ROUTED = /** @type {const} */ ([
  ['intake', 'Intake (Intake Sessions and Wayfinder work)'],
  ['dispatch', 'Dispatch (ordinary Runs)'],
]);

const routesText = (/** @type {any} */ routes) =>
  ROUTED.map(([a]) => {
    const r = routes?.[a];
    return `${a}: ${r ? `${r.primary}${r.fallback ? `, then ${r.fallback}` : ''}` : 'no route'}`;
  }).join('; ');

/**
 * A Project's Credential Routes: for intake and for dispatch, a Primary and an optional Fallback
 * among the Stack's Credentials that are not archived; saved as a whole, refusals shown by the
 * Save button in the API's words.
 */
const routesEditor = (/** @type {any} */ s, /** @type {any} */ p, /** @type {any[]} */ credentials) => {
  const routes = p.credentialRoutes ?? {};
  const names = credentials.filter((c) => !c.archivedAt).map((c) => c.name);
  const current = h('p', { class: 'routes' }, `Credential routes: ${routesText(routes)}`);
  if (!names.length && !Object.keys(routes).length)
    return h(
      'div',
      {},
      current,
      h(
        'p',
        { class: 'muted' },
        'No Credential to route yet: ',
        h('a', { href: `#/credentials/${encodeURIComponent(s.stackId)}` }, `add one to ${s.name}`),
        '.',
      ),
    );
  const select = (/** @type {string} */ activity, /** @type {'primary'|'fallback'} */ position) => {
    const chosen = routes[activity]?.[position] ?? '';
    // A name routed before it was archived stays shown, so saving as is can be refused in words.
    const choices = chosen && !names.includes(chosen) ? [...names, chosen] : names;
    return h(
      'select',
      { name: `${activity}-${position}`, id: `route-${s.stackId}-${p.projectId}-${activity}-${position}` },
      h('option', { value: '' }, position === 'primary' ? 'No route' : 'No Fallback'),
      ...choices.map((n) =>
        h(
          'option',
          n === chosen ? { value: n, selected: '' } : { value: n },
          names.includes(n) ? n : `${n} (archived)`,
        ),
      ),
    );
  };
  return h(
    'div',
    {},
    current,
    h(
      'details',
      {},
      h('summary', {}, `Edit the Credential routes of ${p.name}`),
      form(
        `Credential routes of ${p.name}`,
        ROUTED.map(([a, words]) =>
          h(
            'fieldset',
            {},
            h('legend', {}, words),
            h(
              'div',
              { class: 'row' },
              label(`Primary for ${a}`, select(a, 'primary')),
              label(`Fallback for ${a}`, select(a, 'fallback')),
            ),
          ),
        ),
        `Save the routes of ${p.name}`,
        async (data) => {
          /** @type {Record<string, { primary: string, fallback?: string }>} */
          const body = {};
          for (const [a] of ROUTED) {
            const primary = String(data.get(`${a}-primary`) ?? '');
            const fallback = String(data.get(`${a}-fallback`) ?? '');
            if (!primary && fallback) throw new Error(`Choose a Primary for ${a} before its Fallback.`);
            if (primary) body[a] = { primary, ...(fallback ? { fallback } : {}) };
          }
          const saved = await api(
            'PUT',
            `/v1/stacks/${s.stackId}/projects/${encodeURIComponent(p.projectId)}/credential-routes`,
            body,
          );
          say(`The Credential routes of ${p.name} are saved: ${routesText(saved.credentialRoutes)}.`);
          await route();
        },
      ),
    ),
  );
};

/** The preview's `capacity` (functions/plan-changes/preview.ts) in words. */
const CAPACITY = {
  placeable_in_location: 'Fits where the Stack is now',
  placeable_elsewhere_in_home_region: 'Fits in another location of your Home Region (the Stack moves)',
  would_queue:
    'No room for this Plan in your Home Region now: the change waits for capacity (up to 7 days; you can cancel it meanwhile)',
};

const planSide = (/** @type {string} */ title, /** @type {any} */ side, /** @type {any[]} */ plans) =>
  h(
    'section',
    { class: 'card', 'aria-label': title },
    h('h4', {}, `${title}: ${label_(plans, side.plan)}, ${money(side.monthlyPrice)} a month`),
    dl([
      ['Resources', resources(side.resources)],
      ['Quotas', caps(side.quotas)],
      ...(side.capacity
        ? [
            [
              /** @type {string} */ ('Capacity'),
              /** @type {string} */ (
                CAPACITY[/** @type {keyof CAPACITY} */ (side.capacity)] ?? label(side.capacity)
              ),
            ],
          ]
        : []),
    ]),
  );

const previewView = (/** @type {any} */ s, /** @type {any} */ p, /** @type {any[]} */ plans) =>
  h(
    'div',
    { class: 'preview' },
    h(
      'div',
      { class: 'plans' },
      planSide('Current Plan', p.current, plans),
      planSide('Requested Plan', p.requested, plans),
    ),
    p.estimate
      ? estimateTable(p.estimate)
      : h('p', {}, `No estimate now: ${p.estimateUnavailable?.message ?? label(p.estimateUnavailable)}`),
    h('p', {}, `Your billing-cycle date stays ${dateTime(p.billingCycleDate)}.`),
    ...(p.warnings ?? []).map((/** @type {string} */ w) =>
      h('p', { class: 'error' }, h('strong', {}, 'Note: '), w),
    ),
    p.refusals?.length
      ? h(
          'div',
          { role: 'alert' },
          h('p', {}, h('strong', {}, 'This change cannot be confirmed:')),
          h(
            'ul',
            {},
            ...p.refusals.map((/** @type {any} */ r) => h('li', {}, r.message ?? label(r.reason ?? r))),
          ),
        )
      : button('Confirm Plan Change', async () => {
          await api('POST', `/v1/stacks/${s.stackId}/plan-changes`, { plan: p.requested.plan });
          location.hash = '#/plan-changes';
        }),
  );

// ---------------------------------------------------------------------------------------------
// Plan Changes: progress and history, from the API each time (so it survives reload and sign-in).

const OPEN = (/** @type {any} */ c) =>
  !c.outcome && !['completed', 'cancelled', 'expired', 'rolled_back', 'failed'].includes(c.status);

const planChangesScreen = async (/** @type {any} */ me) => {
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
    h('h3', {}, `${label_(plans, c.currentPlan)} to ${label_(plans, c.requestedPlan)}`),
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

// ---------------------------------------------------------------------------------------------
// Credentials of a Stack (a Stack picker): provision and rotate, the list, archive, the Guide
// selection, and deletion with the blocking list and then the Thread-count confirmation.

// The Provider catalog, the consent text and its version, the activities and efforts all come from
// `GET /v1/credentials/catalog` (the API's own rules), never from this page.

/** The catalog's Provider entry for a Provider value (undefined for one the catalog lost). */
const providerOf = (/** @type {any} */ catalog, /** @type {string} */ provider) =>
  catalog.providers.find((/** @type {any} */ p) => p.provider === provider);

/**
 * The kinds to offer for a Provider on this Stack. A kind that only works on a Local Stack using
 * the host Executor (`ambient`) is offered only where the Stack view says it is one
 * (`localHostExecutor`); the API refuses it everywhere else.
 */
const kindsFor = (/** @type {any} */ catalog, /** @type {string} */ provider, /** @type {any} */ stack) =>
  (providerOf(catalog, provider)?.kinds ?? []).filter(
    (/** @type {any} */ k) => !k.localOnly || stack.localHostExecutor === true,
  );

const kindNote = (/** @type {any} */ k) =>
  [
    k.needsConsent
      ? 'Spends your own subscription with the provider: your consent is needed.'
      : 'Metered: the provider charges its usage on top of the flat fee; no consent needed.',
    k.localOnly
      ? 'Uses the host’s own login: this Stack is a Local Stack using the host Executor, so no secret is sent.'
      : '',
  ]
    .filter(Boolean)
    .join(' ');

/** `#/<screen>/<stackId>/<more>` → its parts. */
const hashParts = () => location.hash.split('/').slice(1).map(decodeURIComponent);

/** A Stack picker that moves to `#/<base>/<stackId>`; the chosen Stack, else the first. */
const stackPicker = (/** @type {string} */ base, /** @type {any[]} */ stacks, /** @type {any} */ chosen) =>
  form(
    'Choose a Stack',
    [
      label(
        'Stack',
        h(
          'select',
          { name: 'stack', id: `${base}-stack` },
          ...stacks.map((/** @type {any} */ s) =>
            h(
              'option',
              s.stackId === chosen.stackId ? { value: s.stackId, selected: '' } : { value: s.stackId },
              s.name,
            ),
          ),
        ),
      ),
    ],
    'Show this Stack',
    async (data) => {
      location.hash = `#/${base}/${encodeURIComponent(String(data.get('stack')))}`;
    },
  );

const pickStack = async (/** @type {string | undefined} */ wanted) => {
  const { stacks } = await api('GET', '/v1/stacks');
  const chosen = stacks.find((/** @type {any} */ s) => s.stackId === wanted) ?? stacks[0];
  return { stacks, chosen };
};

const profileText = (
  /** @type {any} */ profile,
  /** @type {any} */ catalog,
  /** @type {string} */ provider,
) => {
  const parts = catalog.activities
    .filter((/** @type {string} */ a) => profile?.[a])
    .map(
      (/** @type {string} */ a) =>
        `${a}: ${[profile[a].model, profile[a].effort ? `${profile[a].effort} effort` : ''].filter(Boolean).join(', ')}`,
    );
  const d = providerOf(catalog, provider)?.defaults;
  const defaults = d ? ` (${d.model}, ${d.effort} effort)` : '';
  return parts.length
    ? `${parts.join('; ')}; otherwise the Provider’s defaults${defaults}`
    : `The Provider’s defaults${defaults}`;
};

const credentialsScreen = async () => {
  const { stacks, chosen } = await pickStack(hashParts()[1]);
  if (!chosen) return screen('Credentials', h('p', {}, 'No Stack yet.'));
  const q = `?stackId=${encodeURIComponent(chosen.stackId)}`;
  const [data, { projects }, catalog] = await Promise.all([
    api('GET', `/v1/credentials${q}`),
    api('GET', `/v1/stacks/${chosen.stackId}/projects`),
    api('GET', '/v1/credentials/catalog'),
  ]);
  const again = () => credentialsScreen();
  // A torn-down Stack holds no new Credential (the API refuses `stack_not_running`): no form, no Rotate.
  const tornDown = chosen.lifecycle === 'torn_down';
  const provision = tornDown
    ? {
        element: h('p', { class: 'muted' }, 'This Stack was torn down: it can hold no new Credential.'),
        rotate: undefined,
      }
    : provisionForm(chosen, catalog, again);
  screen(
    `Credentials of ${chosen.name}`,
    stackPicker('credentials', stacks, chosen),
    guideSection(chosen, data, again),
    h('h3', {}, 'Credentials'),
    data.credentials.length
      ? h(
          'div',
          {},
          ...data.credentials.map((/** @type {any} */ c) =>
            credentialCard(chosen, c, projects, provision, again, catalog),
          ),
        )
      : h('p', {}, 'No Credentials yet.'),
    provision.element,
  );
  if (data.credentials.some((/** @type {any} */ c) => c.validation.state === 'pending'))
    poll(async () => {
      const now = await api('GET', `/v1/credentials${q}`);
      return JSON.stringify(now) !== JSON.stringify(data);
    }, again);
};

const guideSection = (
  /** @type {any} */ stack,
  /** @type {any} */ data,
  /** @type {() => Promise<void>} */ again,
) => {
  const g = data.guide;
  const choices = data.credentials.filter(
    (/** @type {any} */ c) => !c.archivedAt && c.validation.state !== 'invalid',
  );
  return h(
    'section',
    { class: 'card', 'aria-label': 'Guide Credential' },
    h('h3', {}, 'Guide Credential'),
    h('p', {}, 'Every Guide Session of this Stack uses this one Credential, never another.'),
    dl([
      [
        'Selected',
        g.name
          ? `${g.name}${g.selectedAt ? ` (since ${dateTime(g.selectedAt)})` : ''}: ${g.usable ? 'usable' : `not usable (${label(g.unusableReason)})`}`
          : 'None',
      ],
      [
        'Last cleared',
        g.cleared ? `${g.cleared.name}: ${label(g.cleared.reason)}, ${dateTime(g.cleared.at)}` : 'Never',
      ],
    ]),
    choices.length
      ? form(
          'Choose the Guide Credential',
          [
            label(
              'Guide Credential',
              h(
                'select',
                { name: 'name', id: 'guide-name' },
                ...choices.map((/** @type {any} */ c) =>
                  h(
                    'option',
                    c.name === g.name ? { value: c.name, selected: '' } : { value: c.name },
                    c.name,
                  ),
                ),
              ),
            ),
          ],
          'Choose as Guide',
          async (form) => {
            await api('PUT', `/v1/stacks/${stack.stackId}/guide-credential`, {
              name: String(form.get('name')),
            });
            say(`The Guide now uses ${form.get('name')}.`);
            await again();
          },
        )
      : h('p', { class: 'muted' }, 'No Credential can be chosen: provision one first.'),
    g.name
      ? button(
          'Clear the Guide',
          async () => {
            await api('PUT', `/v1/stacks/${stack.stackId}/guide-credential`, { name: null });
            say('The Guide selection is cleared.');
            await again();
          },
          'secondary',
        )
      : '',
  );
};

const credentialCard = (
  /** @type {any} */ stack,
  /** @type {any} */ c,
  /** @type {any[]} */ projects,
  /** @type {{ rotate: ((c: any) => void) | undefined }} */ provision,
  /** @type {() => Promise<void>} */ again,
  /** @type {any} */ catalog,
) => {
  const q = `?stackId=${encodeURIComponent(stack.stackId)}`;
  const out = h('div', {});
  const projectName = (/** @type {string} */ id) => projects.find((p) => p.projectId === id)?.name ?? id;
  const remove = async (/** @type {string} */ token = '') => {
    out.replaceChildren();
    try {
      await api(
        'DELETE',
        `/v1/credentials/${encodeURIComponent(c.name)}${q}${token ? `&confirmationToken=${encodeURIComponent(token)}` : ''}`,
      );
      say(`Credential ${c.name} is deleted.`);
      await again();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'credential_in_use')
        out.replaceChildren(
          h(
            'div',
            { role: 'alert' },
            h('p', {}, h('strong', {}, 'Cannot delete: '), `these routes name ${c.name}. Change them first.`),
            h(
              'ul',
              { 'aria-label': `Routes naming ${c.name}` },
              ...(error.body.uses ?? []).map((/** @type {any} */ u) =>
                h('li', {}, `Project ${projectName(u.projectId)}: ${u.activity}, ${u.position}`),
              ),
            ),
          ),
        );
      else if (error instanceof ApiError && error.code === 'confirmation_required')
        out.replaceChildren(
          h(
            'div',
            { role: 'alert' },
            h(
              'p',
              {},
              `${error.body.threadCount} Thread(s) use ${c.name}: deleting it means they cannot go on. Confirm before ${dateTime(error.body.expiresAt)}.`,
            ),
            button(`Confirm: delete ${c.name} and stop ${error.body.threadCount} Thread(s)`, () =>
              remove(error.body.confirmationToken),
            ),
          ),
        );
      else out.replaceChildren(errorBox(error));
    }
  };
  const v = c.validation;
  return h(
    'section',
    { class: 'card', 'aria-label': `Credential ${c.name}` },
    h('h4', {}, c.name),
    dl([
      [
        'Provider',
        `${c.provider}${providerOf(catalog, c.provider) ? `: ${providerOf(catalog, c.provider).name}` : ''}`,
      ],
      ['Kind', label(c.kind)],
      [
        'Usage',
        c.usage === 'metered'
          ? 'Metered: the provider charges its usage on top of the flat fee'
          : 'Your personal subscription with the provider',
      ],
      [
        'Validation',
        `${label(v.state)}${v.reason ? `: ${v.reason}` : ''}${v.checkedAt ? ` (checked ${dateTime(v.checkedAt)})` : ''}`,
      ],
      ['Usable', c.usable ? 'Yes' : `No: ${label(c.unusableReason)}`],
      [
        'Consent',
        c.consent
          ? `Given by ${c.consent.by} on ${dateTime(c.consent.at)} (text version ${c.consent.textVersion})`
          : 'Not needed',
      ],
      ['Runtime Profile', profileText(c.runtimeProfile, catalog, c.provider)],
      ['Created', dateTime(c.createdAt)],
      ['Rotated', c.rotatedAt ? dateTime(c.rotatedAt) : 'Never'],
      ['Archived', c.archivedAt ? dateTime(c.archivedAt) : 'No'],
    ]),
    h(
      'p',
      { class: 'actions' },
      provision.rotate ? button(`Rotate ${c.name}`, () => provision.rotate?.(c), 'secondary') : '',
      ' ',
      c.archivedAt
        ? ''
        : button(
            `Archive ${c.name}`,
            async () => {
              await api('POST', `/v1/credentials/${encodeURIComponent(c.name)}/archive${q}`);
              say(`Credential ${c.name} is archived.`);
              await again();
            },
            'secondary',
          ),
      ' ',
      button(`Delete ${c.name}`, () => remove(), 'secondary'),
    ),
    out,
  );
};

/** Provisions (a new name) or rotates (an existing one). The material never stays on the page. */
const provisionForm = (
  /** @type {any} */ stack,
  /** @type {any} */ catalog,
  /** @type {() => Promise<void>} */ again,
) => {
  const { textVersion, text: consentText } = catalog.consent;
  const name = h('input', {
    name: 'name',
    id: 'cred-name',
    required: '',
    pattern: '[a-z0-9][a-z0-9\\-]{0,62}',
    autocomplete: 'off',
  });
  const provider = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { name: 'provider', id: 'cred-provider' },
      ...catalog.providers.map((/** @type {any} */ p) =>
        h('option', { value: p.provider }, `${p.name} (${p.provider})`),
      ),
    )
  );
  const kind = /** @type {HTMLSelectElement} */ (
    h('select', { name: 'kind', id: 'cred-kind', 'aria-describedby': 'cred-kind-note' })
  );
  const note = h('p', { id: 'cred-kind-note', class: 'muted' });
  const secret = /** @type {HTMLInputElement} */ (
    h('input', { name: 'material', id: 'cred-material', type: 'password', autocomplete: 'off' })
  );
  const file = /** @type {HTMLTextAreaElement} */ (
    h('textarea', { name: 'authFile', id: 'cred-auth-file', rows: '5', spellcheck: 'false' })
  );
  const upload = /** @type {HTMLInputElement} */ (
    h('input', { type: 'file', id: 'cred-auth-upload', accept: 'application/json,.json' })
  );
  upload.addEventListener('change', async () => {
    const chosen = upload.files?.[0];
    if (chosen) file.value = await chosen.text();
  });
  const consent = /** @type {HTMLInputElement} */ (
    h('input', { type: 'checkbox', name: 'consent', id: 'cred-consent' })
  );
  const secretRow = label('Secret (token or key)', secret);
  const fileRow = h(
    'div',
    {},
    label('Auth file (JSON)', file),
    label('Or read the auth file from disk', upload),
  );
  const consentRow = h(
    'fieldset',
    {},
    h('legend', {}, `Consent (text version ${textVersion})`),
    h('p', { id: 'consent-text' }, consentText),
    h(
      'div',
      {},
      consent,
      ' ',
      h('label', { for: 'cred-consent' }, `I agree to the consent text above (version ${textVersion})`),
    ),
  );
  const profile = h(
    'fieldset',
    {},
    h('legend', {}, 'Runtime Profile (optional; left empty, the Provider’s defaults apply)'),
    h('p', { class: 'muted', id: 'cred-defaults' }),
    ...catalog.activities.map((/** @type {string} */ a) =>
      h(
        'div',
        { class: 'row' },
        label(
          `Model for ${a}`,
          h('input', { name: `model-${a}`, id: `cred-model-${a}`, autocomplete: 'off' }),
        ),
        label(
          `Effort for ${a}`,
          h(
            'select',
            { name: `effort-${a}`, id: `cred-effort-${a}` },
            h('option', { value: '' }, 'Default'),
            ...catalog.efforts.map((/** @type {string} */ e) => h('option', { value: e }, e)),
          ),
        ),
      ),
    ),
  );
  const defaultsLine = /** @type {HTMLElement} */ (profile.querySelector('#cred-defaults'));
  /** The catalog's entry of the chosen kind. */
  const chosenKind = () =>
    (providerOf(catalog, provider.value)?.kinds ?? []).find((/** @type {any} */ k) => k.kind === kind.value);
  const heading = h('h3', { tabindex: '-1' }, 'Provision a Credential');
  const sync = () => {
    const current = kind.value;
    kind.replaceChildren(
      ...kindsFor(catalog, provider.value, stack).map((/** @type {any} */ k) =>
        h('option', k.kind === current ? { value: k.kind, selected: '' } : { value: k.kind }, label(k.kind)),
      ),
    );
    const k = kind.value;
    const entry = chosenKind();
    note.textContent = entry ? kindNote(entry) : '';
    const d = providerOf(catalog, provider.value)?.defaults;
    defaultsLine.textContent = d ? `Left empty: ${d.model} with ${d.effort} effort.` : '';
    secretRow.hidden = k === 'auth_file' || Boolean(entry?.localOnly);
    fileRow.hidden = k !== 'auth_file';
    consentRow.hidden = !entry?.needsConsent;
    if (secretRow.hidden) secret.removeAttribute('required');
    else secret.setAttribute('required', '');
    if (consentRow.hidden) consent.removeAttribute('required');
    else consent.setAttribute('required', '');
  };
  provider.addEventListener('change', sync);
  kind.addEventListener('change', sync);
  const element = h(
    'section',
    { class: 'card', 'aria-label': 'Provision or rotate a Credential' },
    heading,
    h(
      'p',
      {},
      'A new name adds a Credential; an existing name rotates it (new material, possibly another kind, never another Provider). The secret is sent once and never shown again.',
    ),
    form(
      'Provision a Credential',
      [
        label('Name (lowercase letters, digits and hyphens)', name),
        label('Provider', provider),
        label('Kind', kind),
        note,
        secretRow,
        fileRow,
        consentRow,
        profile,
      ],
      'Save the Credential',
      async (data, formElement) => {
        const k = String(data.get('kind'));
        const entry = chosenKind();
        const material = entry?.localOnly
          ? undefined
          : String(data.get(k === 'auth_file' ? 'authFile' : 'material'));
        // The material leaves the page now: the fields are emptied before the answer comes back.
        secret.value = '';
        file.value = '';
        upload.value = '';
        /** @type {Record<string, any>} */
        const runtimeProfile = {};
        for (const a of catalog.activities) {
          const model = String(data.get(`model-${a}`) ?? '').trim();
          const effort = String(data.get(`effort-${a}`) ?? '');
          if (model || effort)
            runtimeProfile[a] = { ...(model ? { model } : {}), ...(effort ? { effort } : {}) };
        }
        const saved = await api(
          'POST',
          `/v1/credentials/${encodeURIComponent(String(data.get('name')))}?stackId=${encodeURIComponent(stack.stackId)}`,
          {
            provider: String(data.get('provider')),
            kind: k,
            ...(material ? { material } : {}),
            ...(entry?.needsConsent ? { consent: { textVersion } } : {}),
            ...(Object.keys(runtimeProfile).length ? { runtimeProfile } : {}),
          },
        );
        formElement.reset();
        say(`Credential ${saved.name} is saved; its validation is ${label(saved.validation.state)}.`);
        await again();
      },
    ),
  );
  sync();
  return {
    element,
    rotate: (/** @type {any} */ c) => {
      heading.textContent = `Rotate ${c.name}`;
      name.setAttribute('value', c.name);
      /** @type {HTMLInputElement} */ (name).value = c.name;
      provider.value = c.provider;
      sync();
      kind.value = c.kind;
      sync();
      heading.focus();
    },
  };
};

// ---------------------------------------------------------------------------------------------
// Export archives of a Stack: start, follow, download. The Stack's exports come from the API
// (`GET /v1/stacks/{stackId}/exports`, newest first), so a reload or another browser shows them.

const exportScreen = async () => {
  const { stacks, chosen } = await pickStack(hashParts()[1]);
  if (!chosen) return screen('Export', h('p', {}, 'No Stack yet.'));
  const { exports } = await api('GET', `/v1/stacks/${chosen.stackId}/exports`);
  const current = exports[0];
  const out = h('div', {});
  /** Shows the chosen Stack again (its address keeps it across a reload). */
  const again = async () => {
    const target = `#/export/${encodeURIComponent(chosen.stackId)}`;
    if (location.hash !== target) location.hash = target;
    else await exportScreen();
  };
  const running = current && ['requested', 'building'].includes(current.status);
  screen(
    `Export ${chosen.name}`,
    stackPicker('export', stacks, chosen),
    h(
      'p',
      {},
      'An export archive holds the Stack’s Event journal and the work of its Threads that never reached a remote (a tar file). The Stack’s Dispatcher builds it; it stays available for 7 days.',
    ),
    current ? exportCard(chosen, current) : h('p', {}, 'No export of this Stack yet.'),
    running
      ? ''
      : chosen.lifecycle === 'torn_down'
        ? // The API refuses `stack_torn_down`: its data is gone.
          h('p', {}, 'This Stack was torn down: there is nothing left to export.')
        : button('Start an export', async () => {
            out.replaceChildren();
            try {
              await api('POST', `/v1/stacks/${chosen.stackId}/exports`, {});
              say('The export has started.');
            } catch (error) {
              // One runs already (started elsewhere): show it rather than an error.
              if (!(error instanceof ApiError && error.code === 'export_in_progress'))
                return out.replaceChildren(errorBox(error));
            }
            await again();
          }),
    out,
    exports.length ? exportsTable(chosen, exports) : '',
  );
  if (running)
    poll(async () => {
      const now = await api('GET', `/v1/stacks/${chosen.stackId}/exports`);
      return JSON.stringify(now.exports[0]) !== JSON.stringify(current);
    }, exportScreen);
};

const sizeText = (/** @type {number | null} */ bytes) =>
  bytes === null || bytes === undefined ? '—' : `${bytes.toLocaleString()} bytes`;

/** Asks for a short-lived download link of a ready export, starts it, and leaves the link in `out`. */
const download = async (/** @type {any} */ stack, /** @type {any} */ e, /** @type {HTMLElement} */ out) => {
  const d = await api(
    'POST',
    `/v1/stacks/${stack.stackId}/exports/${encodeURIComponent(e.exportId)}/download`,
    {},
  );
  out.replaceChildren(
    h(
      'p',
      {},
      `Downloading ${d.fileName}. If it did not start, `,
      h('a', { href: d.url, download: d.fileName }, `download ${d.fileName} again`),
      ` (the link works until ${dateTime(d.expiresAt)}).`,
    ),
  );
  location.assign(d.url);
};

/** The Stack's recent exports, newest first; an older one still ready can be downloaded too. */
const exportsTable = (/** @type {any} */ stack, /** @type {any[]} */ exports) => {
  const out = h('div', {});
  return h(
    'section',
    { 'aria-label': 'Recent exports' },
    h('h3', {}, 'Recent exports'),
    h(
      'table',
      {},
      h('caption', { class: 'muted' }, 'Exports of this Stack, newest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Requested'),
          h('th', { scope: 'col' }, 'Status'),
          h('th', { scope: 'col' }, 'Size'),
          h('th', { scope: 'col' }, 'Available until'),
          h('th', { scope: 'col' }, 'Download'),
        ),
      ),
      h(
        'tbody',
        {},
        ...exports.map((e, index) =>
          h(
            'tr',
            {},
            h('td', {}, dateTime(e.requestedAt)),
            h('td', {}, `${label(e.status)}${e.failureReason ? `: ${e.failureReason}` : ''}`),
            h('td', {}, sizeText(e.sizeBytes)),
            h('td', {}, e.availableUntil ? dateTime(e.availableUntil) : '—'),
            h(
              'td',
              {},
              index === 0
                ? 'See the last export'
                : e.status === 'ready'
                  ? button(`Download the export of ${dateTime(e.requestedAt)}`, () => download(stack, e, out))
                  : '—',
            ),
          ),
        ),
      ),
    ),
    out,
  );
};

const exportCard = (/** @type {any} */ stack, /** @type {any} */ e) => {
  const out = h('div', {});
  return h(
    'section',
    { class: 'card', 'aria-label': 'The last export' },
    h('h3', {}, 'The last export'),
    dl([
      ['Status', h('span', { 'data-status': e.status }, label(e.status))],
      ['Requested', dateTime(e.requestedAt)],
      ['Ready', e.readyAt ? dateTime(e.readyAt) : e.status === 'failed' ? 'Never' : 'Not yet'],
      ['Size', sizeText(e.sizeBytes)],
      ['Available until', e.availableUntil ? dateTime(e.availableUntil) : '—'],
      ...(e.failureReason
        ? [[/** @type {string} */ ('Why it failed'), /** @type {string} */ (e.failureReason)]]
        : []),
    ]),
    e.status === 'requested' || e.status === 'building'
      ? h('p', {}, 'The Stack’s Dispatcher is building it; this page follows it by itself.')
      : '',
    e.status === 'ready' ? button('Download the archive', () => download(stack, e, out)) : '',
    out,
  );
};

// ---------------------------------------------------------------------------------------------

const ROUTES = {
  '#/account': accountScreen,
  '#/stacks': stacksScreen,
  '#/plan-changes': planChangesScreen,
  '#/credentials': credentialsScreen,
  '#/export': exportScreen,
};

const route = async () => {
  window.clearTimeout(pollTimer);
  let me;
  try {
    me = await api('GET', '/v1/me');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return signInScreen();
    return screen('Something went wrong', errorBox(error));
  }
  try {
    // Signed in: Sign out is always there; the links only once there is an account to look at.
    nav.hidden = false;
    navLinks.hidden = !me.slug || me.billingState === 'provisioning';
    if (!me.slug) return slugScreen();
    if (me.billingState === 'provisioning')
      // A close asked for and not yet carried out by the sweep: the account is closing, not for sale.
      return me.closeRequestedAt ? closingScreen(me) : await plansScreen(me);
    // `#/<screen>` or `#/<screen>/<stackId>[/<more>]`. A leaving tenant starts on its account.
    const base = `#/${location.hash.split('/')[1] ?? ''}`;
    const hash = base in ROUTES ? base : me.billingState === 'decommissioning' ? '#/account' : '#/stacks';
    for (const link of nav.querySelectorAll('a'))
      link.getAttribute('href') === hash
        ? link.setAttribute('aria-current', 'page')
        : link.removeAttribute('aria-current');
    await ROUTES[/** @type {keyof ROUTES} */ (hash)](me);
  } catch (error) {
    // The session ended while the screen loaded: sign in again rather than show an error.
    if (error instanceof ApiError && error.status === 401) return signInScreen();
    screen('Something went wrong', errorBox(error));
  }
};

document.getElementById('sign-out')?.addEventListener('click', async () => {
  await api('POST', '/v1/auth/sign-out').catch(() => undefined);
  location.hash = '';
  await route();
});
// The skip link moves focus to the screen; `#main` is no address of the router, so the screen stays.
document.querySelector('a.skip')?.addEventListener('click', (event) => {
  event.preventDefault();
  main.focus();
});
window.addEventListener('hashchange', () => {
  say('');
  route();
});
route();
