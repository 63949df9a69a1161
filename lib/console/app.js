// The tenant console: plain ES modules over the public API (docs/api/openapi.json), same site as
// the API so the session cookie authenticates every call. Built from DOM nodes (never innerHTML).
import { ApiError, api } from './api.js';
import { dateTime, h, label, money } from './dom.js';

const main = /** @type {HTMLElement} */ (document.getElementById('main'));
const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
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

const planCard = (/** @type {any} */ plan, /** @type {Node[]} */ actions) =>
  h(
    'section',
    { class: 'card', 'aria-label': plan.name },
    h('h3', {}, `${plan.name}: ${money(plan.monthlyPrice)} a month`),
    dl([
      ['Resources', resources(plan.resources)],
      ['Caps', caps(plan)],
      ['Capacity', plan.placeable ? 'Available now' : 'Full: join the waitlist'],
    ]),
    ...actions,
  );

const plansScreen = async (/** @type {any} */ me) => {
  const { plans } = await api('GET', '/v1/billing/plans');
  const answer = h('div', {});
  const checkout = async (/** @type {string} */ plan) => {
    answer.replaceChildren();
    try {
      const { url } = await api('POST', '/v1/billing/checkout', { plan });
      location.assign(url);
    } catch (error) {
      if (error instanceof ApiError && error.body?.reason === 'no_capacity') {
        const fit = plans.filter((/** @type {any} */ p) => error.body.availablePlans?.includes(p.value));
        answer.replaceChildren(
          h('p', { class: 'error', role: 'alert' }, `No capacity for that Plan now. ${error.message}`),
          fit.length
            ? h('p', {}, `Plans that fit now: ${fit.map((/** @type {any} */ p) => p.name).join(', ')}.`)
            : h('p', {}, 'No Plan fits now.'),
          button(`Join the waitlist for ${label_(plans, plan)}`, async () => {
            await api('POST', '/v1/billing/waitlist', { plan });
            answer.append(h('p', { class: 'ok' }, 'You are on the waitlist; we will email you.'));
          }),
        );
      } else answer.replaceChildren(errorBox(error));
    }
  };
  const params = new URLSearchParams(location.search);
  screen(
    'Plans',
    params.get('checkout') === 'complete'
      ? h('p', { class: 'ok' }, 'Payment received. Your account becomes active in a moment.')
      : h('p', {}, `Signed in as ${me.user.login}; your Home Region is ${me.homeRegion}.`),
    h(
      'div',
      { class: 'plans' },
      ...plans.map((/** @type {any} */ plan) =>
        planCard(plan, [
          plan.placeable
            ? button(`Subscribe to ${plan.name}`, () => checkout(plan.value))
            : button(`Join the waitlist for ${plan.name}`, async () => {
                await api('POST', '/v1/billing/waitlist', { plan: plan.value });
                answer.replaceChildren(
                  h('p', { class: 'ok' }, 'You are on the waitlist; we will email you.'),
                );
              }),
        ]),
      ),
    ),
    answer,
    me.billingState === 'provisioning' && !me.paid ? closeSection() : '',
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
    } catch {
      // shown again on the next tick
    }
    pollTimer = window.setTimeout(tick, 1500);
  };
  pollTimer = window.setTimeout(tick, 1500);
};

const closeSection = () =>
  h(
    'section',
    { class: 'card', 'aria-label': 'Close account' },
    h('h3', {}, 'Close this account'),
    h('p', {}, 'An account that never paid can be closed at once; nothing is charged.'),
    button(
      'Close account',
      async () => {
        if (!window.confirm('Close this account? This cannot be undone.')) return;
        await api('POST', '/v1/tenant/close');
        say('The account is closing.');
        await route();
      },
      'secondary',
    ),
  );

// ---------------------------------------------------------------------------------------------
// Account & Billing.

const DECOMMISSIONING = ['decommissioning', 'cancelled', 'refunded', 'closed'];

const accountScreen = async (/** @type {any} */ me) => {
  const billing = await api('GET', '/v1/billing/status');
  const portal = button('Open the billing portal', async () => {
    const { url } = await api('POST', '/v1/billing/portal');
    location.assign(url);
  });
  const mb = billing.moneyBack;
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
      [
        'Price lock',
        billing.priceLock.founding
          ? `Founding price locked on ${billing.priceLock.lockedStacks} Stack(s)`
          : 'No price lock',
      ],
    ]),
    DECOMMISSIONING.includes(billing.billingState)
      ? h(
          'p',
          { class: 'error' },
          'This account is being decommissioned: you may still sign in, read your billing history and export your data until the Stacks are torn down.',
        )
      : '',
    h('p', {}, portal),
    h(
      'section',
      { class: 'card', 'aria-label': 'Money-back guarantee' },
      h('h3', {}, 'Money-back guarantee'),
      mb.available
        ? h('p', {}, `You may ask for a full refund until ${dateTime(mb.windowEndsAt)} (your local time).`)
        : h(
            'p',
            {},
            mb.used ? `Used on ${dateTime(mb.used.at ?? mb.used)}.` : 'Not available for this account.',
          ),
      h('p', {}, 'Write to ', h('a', { href: `mailto:${mb.supportEmail}` }, mb.supportEmail), '.'),
      h('p', {}, h('strong', {}, 'Before you ask: '), mb.reminder),
    ),
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
    billing.priceLock.ended?.length
      ? h('p', {}, `Price locks ended: ${billing.priceLock.ended.length}.`)
      : '',
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
  screen(
    'Stacks',
    ...(await Promise.all(stacks.map((/** @type {any} */ s) => stackCard(s, plans, me)))),
    h(
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
            h('h4', {}, `Adding a ${label_(plans, plan)} Stack at ${money(preview.monthlyPrice)} a month`),
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

const stackCard = async (/** @type {any} */ s, /** @type {any[]} */ plans, /** @type {any} */ me) => {
  const { projects, watchedProjectsCap } = await api('GET', `/v1/stacks/${s.stackId}/projects`);
  const change = h('div', {});
  const planOptions = plans
    .filter((p) => p.value !== s.plan)
    .map((p) => h('option', { value: p.value }, p.name));
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
      ? h('ul', {}, ...projects.map((/** @type {any} */ p) => h('li', {}, `${p.name} (${p.repository})`)))
      : h('p', { class: 'muted' }, 'No Projects yet.'),
    projects.length < watchedProjectsCap
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
    me.planChangeControls?.visible
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

const CAPACITY = {
  placeable_in_location: 'Fits where the Stack is now',
  placeable_elsewhere: 'Fits in another location (the Stack moves)',
  unavailable: 'No capacity now: the change waits for it',
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

const planChangesScreen = async () => {
  const { planChanges } = await api('GET', '/v1/plan-changes');
  const { plans } = await api('GET', '/v1/billing/plans');
  screen(
    'Plan Changes',
    planChanges.length
      ? h('div', {}, ...planChanges.map((/** @type {any} */ c) => changeCard(c, plans)))
      : h('p', {}, 'No Plan Changes yet. Start one from a Stack on the Stacks page.'),
  );
  if (planChanges.some(OPEN))
    poll(async () => {
      const again = await api('GET', '/v1/plan-changes');
      return JSON.stringify(again.planChanges) !== JSON.stringify(planChanges);
    }, planChangesScreen);
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
    ]),
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
            await planChangesScreen();
          },
          'secondary',
        )
      : '',
  );

// ---------------------------------------------------------------------------------------------
// Credentials (read-only in this slice) and the Guide.

const credentialsScreen = async () => {
  const data = await api('GET', '/v1/credentials');
  screen(
    'Credentials',
    data.credentials.length
      ? h(
          'ul',
          {},
          ...data.credentials.map((/** @type {any} */ c) =>
            h('li', {}, `${c.name}: ${c.provider}, ${label(c.kind)}${c.state ? `, ${label(c.state)}` : ''}`),
          ),
        )
      : h('p', {}, 'No Credentials yet.'),
    h('h3', {}, 'Guide'),
    h(
      'p',
      {},
      data.guide.name
        ? `The Guide uses ${data.guide.name}${data.guide.usable ? '' : ` (not usable: ${data.guide.unusableReason ?? 'unknown'})`}.`
        : data.guide.cleared
          ? `No Guide Credential: it was cleared (${label(data.guide.cleared.reason ?? data.guide.cleared)}).`
          : 'No Guide Credential selected.',
    ),
  );
};

// ---------------------------------------------------------------------------------------------

const ROUTES = {
  '#/account': accountScreen,
  '#/stacks': stacksScreen,
  '#/plan-changes': planChangesScreen,
  '#/credentials': credentialsScreen,
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
    if (!me.slug) {
      nav.hidden = true;
      return slugScreen();
    }
    if (me.billingState === 'provisioning') {
      nav.hidden = true;
      return await plansScreen(me);
    }
    nav.hidden = false;
    const hash = location.hash in ROUTES ? location.hash : '#/stacks';
    for (const link of nav.querySelectorAll('a'))
      link.getAttribute('href') === hash
        ? link.setAttribute('aria-current', 'page')
        : link.removeAttribute('aria-current');
    await ROUTES[/** @type {keyof ROUTES} */ (hash)](me);
  } catch (error) {
    screen('Something went wrong', errorBox(error));
  }
};

document.getElementById('sign-out')?.addEventListener('click', async () => {
  await api('POST', '/v1/auth/sign-out').catch(() => undefined);
  location.hash = '';
  await route();
});
window.addEventListener('hashchange', () => {
  say('');
  route();
});
route();
