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
// Credentials of a Stack (a Stack picker): provision and rotate, the list, archive, the Guide
// selection, and deletion with the blocking list and then the Thread-count confirmation.

/** The Provider catalog as the API accepts it (docs/credentials.md); no route lists it. */
const PROVIDERS = /** @type {Record<string, string[]>} */ ({
  'provider-a': ['oauth_token', 'api_key', 'ambient'],
  'provider-b': ['auth_file', 'api_key', 'ambient'],
  'provider-c': ['api_key'],
});
const PERSONAL = ['oauth_token', 'auth_file', 'ambient'];
const CONSENT_VERSION = '2026-11';
const CONSENT_TEXT =
  'I am an administrator of this account. I agree that this Stack uses my own subscription with the provider through this Credential: its usage counts against that subscription, under the provider’s terms, until the Credential is archived or deleted.';
const ACTIVITIES = /** @type {const} */ (['intake', 'dispatch', 'guide']);

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

const profileText = (/** @type {any} */ profile) => {
  const parts = ACTIVITIES.filter((a) => profile?.[a]).map(
    (a) =>
      `${a}: ${[profile[a].model, profile[a].effort ? `${profile[a].effort} effort` : ''].filter(Boolean).join(', ')}`,
  );
  return parts.length ? parts.join('; ') : 'The Provider’s defaults';
};

const credentialsScreen = async () => {
  const { stacks, chosen } = await pickStack(hashParts()[1]);
  if (!chosen) return screen('Credentials', h('p', {}, 'No Stack yet.'));
  const q = `?stackId=${encodeURIComponent(chosen.stackId)}`;
  const [data, { projects }] = await Promise.all([
    api('GET', `/v1/credentials${q}`),
    api('GET', `/v1/stacks/${chosen.stackId}/projects`),
  ]);
  const again = () => credentialsScreen();
  const provision = provisionForm(chosen, again);
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
            credentialCard(chosen, c, projects, provision, again),
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
  /** @type {{ rotate: (c: any) => void }} */ provision,
  /** @type {() => Promise<void>} */ again,
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
      ['Provider', c.provider],
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
      ['Runtime Profile', profileText(c.runtimeProfile)],
      ['Created', dateTime(c.createdAt)],
      ['Rotated', c.rotatedAt ? dateTime(c.rotatedAt) : 'Never'],
      ['Archived', c.archivedAt ? dateTime(c.archivedAt) : 'No'],
    ]),
    h(
      'p',
      { class: 'actions' },
      button(`Rotate ${c.name}`, () => provision.rotate(c), 'secondary'),
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
const provisionForm = (/** @type {any} */ stack, /** @type {() => Promise<void>} */ again) => {
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
      ...Object.keys(PROVIDERS).map((p) => h('option', { value: p }, p)),
    )
  );
  const kind = /** @type {HTMLSelectElement} */ (h('select', { name: 'kind', id: 'cred-kind' }));
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
    h('legend', {}, `Consent (text version ${CONSENT_VERSION})`),
    h('p', { id: 'consent-text' }, CONSENT_TEXT),
    h(
      'div',
      {},
      consent,
      ' ',
      h('label', { for: 'cred-consent' }, `I agree to the consent text above (version ${CONSENT_VERSION})`),
    ),
  );
  const profile = h(
    'fieldset',
    {},
    h('legend', {}, 'Runtime Profile (optional; left empty, the Provider’s defaults apply)'),
    ...ACTIVITIES.map((a) =>
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
            h('option', { value: 'low' }, 'low'),
            h('option', { value: 'medium' }, 'medium'),
            h('option', { value: 'high' }, 'high'),
          ),
        ),
      ),
    ),
  );
  const heading = h('h3', { tabindex: '-1' }, 'Provision a Credential');
  const sync = () => {
    const current = kind.value;
    kind.replaceChildren(
      ...(PROVIDERS[provider.value] ?? []).map((k) =>
        h('option', k === current ? { value: k, selected: '' } : { value: k }, label(k)),
      ),
    );
    const k = kind.value;
    secretRow.hidden = k === 'auth_file' || k === 'ambient';
    fileRow.hidden = k !== 'auth_file';
    consentRow.hidden = !PERSONAL.includes(k);
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
        secretRow,
        fileRow,
        consentRow,
        profile,
      ],
      'Save the Credential',
      async (data, formElement) => {
        const k = String(data.get('kind'));
        const material =
          k === 'ambient' ? undefined : String(data.get(k === 'auth_file' ? 'authFile' : 'material'));
        // The material leaves the page now: the fields are emptied before the answer comes back.
        secret.value = '';
        file.value = '';
        upload.value = '';
        /** @type {Record<string, any>} */
        const runtimeProfile = {};
        for (const a of ACTIVITIES) {
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
            ...(PERSONAL.includes(k) ? { consent: { textVersion: CONSENT_VERSION } } : {}),
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
// Export archives of a Stack: start, follow, download. No route lists a Stack's exports, so the
// last one started is kept in the address (`#/export/<stackId>/<exportId>`) and in this browser.

const EXPORT_KEY = (/** @type {string} */ stackId) => `console.export.${stackId}`;

const exportScreen = async () => {
  const parts = hashParts();
  const { stacks, chosen } = await pickStack(parts[1]);
  if (!chosen) return screen('Export', h('p', {}, 'No Stack yet.'));
  const exportId = parts[2] || localStorage.getItem(EXPORT_KEY(chosen.stackId)) || '';
  let current;
  if (exportId)
    current = await api('GET', `/v1/stacks/${chosen.stackId}/exports/${encodeURIComponent(exportId)}`).catch(
      () => undefined,
    );
  const out = h('div', {});
  const follow = async (/** @type {string} */ id) => {
    localStorage.setItem(EXPORT_KEY(chosen.stackId), id);
    location.hash = `#/export/${encodeURIComponent(chosen.stackId)}/${encodeURIComponent(id)}`;
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
    current ? exportCard(chosen, current) : h('p', {}, 'No export started from this browser yet.'),
    running
      ? ''
      : button('Start an export', async () => {
          out.replaceChildren();
          try {
            const started = await api('POST', `/v1/stacks/${chosen.stackId}/exports`, {});
            say('The export has started.');
            await follow(started.exportId);
          } catch (error) {
            if (error instanceof ApiError && error.code === 'export_in_progress' && error.body.exportId)
              await follow(error.body.exportId);
            else out.replaceChildren(errorBox(error));
          }
        }),
    out,
  );
  if (running)
    poll(async () => {
      const now = await api(
        'GET',
        `/v1/stacks/${chosen.stackId}/exports/${encodeURIComponent(current.exportId)}`,
      );
      return now.status !== current.status;
    }, exportScreen);
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
      ['Size', e.sizeBytes === null ? '—' : `${e.sizeBytes.toLocaleString()} bytes`],
      ['Available until', e.availableUntil ? dateTime(e.availableUntil) : '—'],
      ...(e.failureReason
        ? [[/** @type {string} */ ('Why it failed'), /** @type {string} */ (e.failureReason)]]
        : []),
    ]),
    e.status === 'requested' || e.status === 'building'
      ? h('p', {}, 'The Stack’s Dispatcher is building it; this page follows it by itself.')
      : '',
    e.status === 'ready'
      ? button('Download the archive', async () => {
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
        })
      : '',
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
    if (!me.slug) {
      nav.hidden = true;
      return slugScreen();
    }
    if (me.billingState === 'provisioning') {
      nav.hidden = true;
      return await plansScreen(me);
    }
    nav.hidden = false;
    // `#/<screen>` or `#/<screen>/<stackId>[/<more>]`.
    const base = `#/${location.hash.split('/')[1] ?? ''}`;
    const hash = base in ROUTES ? base : '#/stacks';
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
