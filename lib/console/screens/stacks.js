// Stacks, their Projects and Credential routes, adding a Stack with the estimate first, and the
// Plan Change preview.
import { api } from '../api.js';
import { dateTime, h, label, money, option } from '../dom.js';
import { askFirst, button, caps, dl, form, planName, resources, route, say, screen, table } from '../ui.js';

/** What a change does to the next invoice, in words: added to it, or credited on it. */
export const changeOnNextInvoice = (/** @type {any} */ estimate) => {
  const total = estimate.adjustmentTotal ?? estimate.adjustment;
  const amount = money({ amount: Math.abs(total), currency: estimate.currency });
  return /** @type {[string, string]} */ (
    total < 0 ? ['Credited to your next invoice', amount] : ['Added to your next invoice', amount]
  );
};

// The whole next invoice, then this change's own share of it: after the current discount, with its
// tax estimate, and each of its lines.
const estimateTable = (/** @type {any} */ estimate) => {
  const m = (/** @type {number} */ amount) => money({ amount, currency: estimate.currency });
  return h(
    'div',
    {},
    dl([
      ['Estimated next invoice', m(estimate.total)],
      ['Its discount', m(estimate.discount)],
      ['Its tax', m(estimate.tax)],
      // Nothing is charged now: the change is added to (or credited on) the next invoice.
      changeOnNextInvoice(estimate),
      ['This change, after discount', m(estimate.adjustment)],
      ['Tax on this change', m(estimate.adjustmentTax ?? 0)],
      ['Invoice date', dateTime(estimate.invoiceAt)],
    ]),
    estimate.lines?.length
      ? table(
          "This change's lines",
          ['Line', 'Amount', 'Discount', 'Tax'],
          estimate.lines.map((/** @type {any} */ l) => [l.description, m(l.amount), m(l.discount), m(l.tax)]),
          [1, 2, 3],
        )
      : '',
  );
};

export const stacksScreen = async (/** @type {any} */ me) => {
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
                  `Adding a ${planName(plans, plan)} Stack at ${money(preview.monthlyPrice)} a month`,
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
 * refuses them (`cancellation_scheduled` or `account_closing`; a decommissioning Stack takes no new Project).
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

/**
 * Remove Project, asked first in the page: what is lost (the watching, the Project's Credential
 * Routes), then Confirm or Keep it. Frees a place under the Plan's cap.
 */
const removeProjectControl = (/** @type {any} */ s, /** @type {any} */ p) =>
  h(
    'div',
    { class: 'project-remove' },
    ...askFirst({
      label: `Remove ${p.name}`,
      question: `Remove ${p.name}? ${s.name} stops watching ${p.repository}, and the Project’s Credential Routes are deleted with it. Its place under the Plan’s cap is freed. This cannot be undone.`,
      confirmText: `Confirm: remove ${p.name}`,
      keepText: 'Keep it',
      onConfirm: async () => {
        await api('DELETE', `/v1/stacks/${s.stackId}/projects/${encodeURIComponent(p.projectId)}`);
        say(`Project ${p.name} is removed from ${s.name}.`);
        await route();
      },
    }),
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
  // What the API refuses is not offered: a Stack that is decommissioning or torn down takes no
  // new Project and changes no Plan (a `creating` Stack is running for the API); a leaving
  // account (`cancellation_scheduled`, `account_closing`) changes no Plan either.
  const running = s.lifecycle !== 'decommissioning' && s.lifecycle !== 'torn_down';
  const mayChangePlan = mayChangePlanOf(s, me);
  return h(
    'section',
    { class: 'card', 'aria-label': `Stack ${s.name}` },
    h('h3', {}, s.name),
    dl([
      [
        'Plan',
        `${planName(plans, s.plan)}${s.priceLock?.state === 'locked' ? ` (price locked at ${money(s.priceLock.monthlyPrice)})` : ''}`,
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
            h(
              'li',
              {},
              h('span', {}, `${p.name} (${p.repository})`),
              routesEditor(s, p, credentials),
              me.role === 'administrator' ? removeProjectControl(s, p) : '',
            ),
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
    mayChangePlan ? planChangeEntry(s, plans) : '',
  );
};

/**
 * A Stack's way into the Plan Change flow: the new Plan and Preview Change, then the confirmation
 * in place (both Plans, the estimate, refusals where the button would be). Shown on the Stacks
 * screen and on Account & Billing, only where the caller checked the change may start.
 */
export const planChangeEntry = (/** @type {any} */ s, /** @type {any[]} */ plans) => {
  const change = h('div', {});
  const planOptions = plans
    .filter((p) => p.value !== s.plan)
    .map((p) => h('option', { value: p.value }, p.name));
  return h(
    'div',
    {},
    form(
      `Change the Plan of ${s.name}`,
      [label('New Plan', h('select', { name: 'plan', id: `pc-${s.stackId}` }, ...planOptions))],
      'Preview Change',
      async (data) => {
        const preview = await api('POST', `/v1/stacks/${s.stackId}/plan-changes/preview`, {
          plan: String(data.get('plan')),
        });
        change.replaceChildren(previewView(s, preview, plans));
      },
    ),
    change,
  );
};

/** Whether a Plan Change may start on Stack `s` for this session (the API's own refusals). */
export const mayChangePlanOf = (/** @type {any} */ s, /** @type {any} */ me) =>
  s.lifecycle !== 'decommissioning' &&
  s.lifecycle !== 'torn_down' &&
  me.billingState !== 'decommissioning' &&
  Boolean(me.planChangeControls?.visible);

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
      ...choices.map((n) => option(n, names.includes(n) ? n : `${n} (archived)`, n === chosen)),
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
    h('h4', {}, `${title}: ${planName(plans, side.plan)}, ${money(side.monthlyPrice)} a month`),
    dl([
      ['Resources', resources(side.resources)],
      ['Quotas', caps(side.quotas)],
      ...(side.capacity
        ? [
            /** @type {[string, string]} */ ([
              'Capacity',
              CAPACITY[/** @type {keyof CAPACITY} */ (side.capacity)] ?? label(side.capacity),
            ]),
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
