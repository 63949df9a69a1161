import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { PLAN_CHANGE_GATES } from '../../functions/ports/config.ts';
import { consoleWorld } from '../support/console-world.ts';
import { uniqueLogin } from '../support/local-cloud.ts';

/**
 * The console's release gates and keyboard use in Debian's headless Chromium against the shared
 * `npm start`. Each test seeds its own paying tenant through the API (the first signs up with
 * the keyboard) and opens its own page.
 *
 * - A tenant signs up and starts its checkout with the keyboard only (Tab, Enter; no click),
 *   every focused element visible, named and showing a focus ring.
 * - With a gate down (`customer-contract`, set on the running server and given back after), its
 *   Stacks show no Plan Change control, the Plan Changes page offers none, Account & Billing has no
 *   "Change a Stack's Plan" section, and the API refuses both the preview and the confirmation
 *   (409 plan_changes_unavailable).
 * - Account & Billing and the Stacks screen are walked with Tab from the skip link to the end:
 *   every visible control is reached, in order, each named and with a visible focus indicator;
 *   the skip link moves focus to the screen without leaving it.
 * - Statuses (billing state, a Stack's state, an export's status) are words, not only a colour.
 */

const GATE_DOWN = 'customer-contract';
const { server, cloud, ui } = consoleWorld();

/** Runs `body` with the `customer-contract` gate down on the server, and puts every gate back up. */
const withGateDown = async (body: () => Promise<void>) => {
  const down = await ui.call(server, 'POST', '/_local/plan-change-gates', {
    ready: PLAN_CHANGE_GATES.filter((gate) => gate !== GATE_DOWN),
  });
  expect(down.body.gates[GATE_DOWN]).toBe(false);
  try {
    await body();
  } finally {
    expect(
      (await ui.call(server, 'POST', '/_local/plan-change-gates', { ready: [...PLAN_CHANGE_GATES] })).status,
    ).toBe(200);
  }
};

/** How many reads of `/v1/me` the page has finished (each route of the console starts with one). */
const readsOfMe = (target: Page) =>
  target.evaluate(
    () =>
      (
        globalThis as unknown as {
          performance: { getEntriesByType: (type: string) => { name: string }[] };
        }
      ).performance
        .getEntriesByType('resource')
        .filter((entry) => new URL(entry.name).pathname === '/v1/me').length,
  );

/** What the focused element is, as a keyboard and screen-reader user meets it. */
interface Focus {
  /** `body` when nothing is focused. */
  tag: string;
  /** Its role and accessible name from the browser's accessibility tree (`link "Stacks"`). */
  role: string;
  name: string;
  /** Rendered, and inside the viewport (focus scrolled it there). */
  visible: boolean;
  /** Matches `:focus-visible` (keyboard focus). */
  focusVisible: boolean;
  /** Its computed outline or box-shadow while focused. */
  outline: string;
  boxShadow: string;
  ring: boolean;
  inMain: boolean;
  /** Its place among the screen's visible focusable elements (DOM order), or -1. */
  index: number;
}

/** The page's globals, as the functions below use them in the page (the tests compile without DOM types). */
interface Box {
  width: number;
  height: number;
  top: number;
  right: number;
  bottom: number;
  left: number;
}
interface Element_ {
  id: string;
  tagName: string;
  /** Chromium's computed accessible role and name (ComputedAccessibilityInfo). */
  computedRole?: string;
  computedName?: string;
  matches: (selector: string) => boolean;
  closest: (selector: string) => unknown;
  checkVisibility: (options?: Record<string, boolean>) => boolean;
  getBoundingClientRect: () => Box;
}
interface InPage {
  document: {
    activeElement: Element_ | null;
    body: unknown;
    querySelectorAll: (s: string) => Iterable<Element_>;
  };
  focusable?: Element_[];
  innerWidth: number;
  innerHeight: number;
  getComputedStyle: (
    e: Element_,
  ) => Record<'outlineStyle' | 'outlineWidth' | 'outlineColor' | 'boxShadow', string>;
}

/** The screen's visible focusable elements in DOM order, kept in the page for `focus()`. */
const markFocusable = (target: Page) =>
  target.evaluate(() => {
    const g = globalThis as unknown as InPage;
    const all = [
      ...g.document.querySelectorAll(
        'a[href], button:not([disabled]), input:not([type=hidden]):not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])',
      ),
    ].filter((e) => e.checkVisibility());
    g.focusable = all;
    return all.length;
  });

const focus = async (target: Page): Promise<Focus> => {
  const state = await target.evaluate(() => {
    const g = globalThis as unknown as InPage;
    const e = g.document.activeElement;
    if (!e || e === g.document.body)
      return {
        tag: 'body',
        role: '',
        name: '',
        visible: false,
        focusVisible: false,
        outline: '',
        boxShadow: '',
        ring: false,
        inMain: false,
        index: -1,
      };
    const style = g.getComputedStyle(e);
    const box = e.getBoundingClientRect();
    return {
      tag: e.tagName.toLowerCase(),
      // The browser's own accessibility tree, read in the same step as the rest: `link` "Skip to
      // content", `combobox` "Plan".
      role: e.computedRole,
      name: e.computedName,
      visible:
        e.checkVisibility({ opacityProperty: true, visibilityProperty: true }) &&
        box.width > 0 &&
        box.height > 0 &&
        box.right > 0 &&
        box.bottom > 0 &&
        box.left < g.innerWidth &&
        box.top < g.innerHeight,
      focusVisible: e.matches(':focus-visible'),
      outline: `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor}`,
      boxShadow: style.boxShadow,
      ring:
        (style.outlineStyle !== 'none' && Number.parseFloat(style.outlineWidth) > 0) ||
        style.boxShadow !== 'none',
      inMain: Boolean(e.closest('main')),
      index: g.focusable?.indexOf(e) ?? -1,
    };
  });
  if (state.role === undefined || state.name === undefined)
    throw new Error(
      'Chromium computes no accessible role or name (launched without ComputedAccessibilityInfo?)',
    );
  return { ...state, role: state.role, name: state.name };
};

/** What every element reached with Tab must be: visible, named, with a visible focus indicator. */
const expectUsable = (f: Focus) => {
  const where = `${f.tag} ${f.role} "${f.name}"`;
  expect(f.visible, `${where} is visible`).toBe(true);
  expect(f.name.trim(), `${where} has an accessible name`).not.toBe('');
  expect(f.focusVisible, `${where} matches :focus-visible`).toBe(true);
  expect(f.ring, `${where} shows a focus indicator (outline ${f.outline}, shadow ${f.boxShadow})`).toBe(true);
};

/** Presses Tab (each element reached checked) until the focused element's name matches. */
const tabTo = async (target: Page, name: RegExp, max = 40) => {
  for (let presses = 0; presses < max; presses++) {
    await target.keyboard.press('Tab');
    const f = await focus(target);
    if (f.tag === 'body') continue;
    expectUsable(f);
    if (name.test(f.name)) return f;
  }
  throw new Error(`${name} not reached with ${max} Tab presses`);
};

/**
 * Walks the whole screen with Tab: from the skip link (the first stop) to the last control. Every
 * visible focusable element is reached once, in DOM order, and each is usable.
 */
const walkScreen = async (target: Page) => {
  const count = await markFocusable(target);
  expect(count).toBeGreaterThan(2);
  // A new screen has focus on its name at the top of the page (read, not shown): the first Tab is
  // the skip link.
  const start = await target.evaluate(() => {
    const active = (globalThis as unknown as InPage).document.activeElement;
    return { id: active?.id };
  });
  expect(start.id).toBe('screen-title');
  await target.keyboard.press('Tab');
  let f = await focus(target);
  expect(f.index, 'the first Tab stop is the skip link').toBe(0);
  const visited: Focus[] = [];
  while (f.index !== -1 || f.tag !== 'body') {
    expectUsable(f);
    visited.push(f);
    if (visited.length > count + 2) break;
    await target.keyboard.press('Tab');
    f = await focus(target);
    if (f.index === 0) break;
  }
  expect(visited.map((v) => v.index)).toEqual([...Array(count).keys()]);
  expect(visited[0]).toMatchObject({ role: 'link', name: 'Skip to content' });
  return visited;
};

/** Shift+Tab back to the first stop, the skip link (each stop on the way checked). */
const toSkipLink = async (target: Page) => {
  for (let presses = 0; presses < 80; presses++) {
    await target.keyboard.press('Shift+Tab');
    const f = await focus(target);
    if (f.tag === 'body') continue;
    expectUsable(f);
    if (f.name === 'Skip to content') return f;
  }
  throw new Error('the skip link was not reached with Shift+Tab');
};

/** The skip link: Enter on it moves focus into main; the screen and its address stay. */
const skipToMain = async (target: Page, title: string) => {
  const address = target.url();
  await toSkipLink(target);
  await target.keyboard.press('Enter');
  await expect
    .poll(() => target.evaluate(() => (globalThis as unknown as InPage).document.activeElement?.id))
    .toBe('main');
  expect(target.url()).toBe(address);
  await expect(target.getByRole('heading', { level: 2, name: title }).isVisible()).resolves.toBe(true);
  const onMain = await focus(target);
  expect(onMain.ring, `main shows a focus indicator (outline ${onMain.outline})`).toBe(true);
  // The next Tab is the screen's first control, past the header's links.
  await target.keyboard.press('Tab');
  const next = await focus(target);
  expectUsable(next);
  expect(next.inMain).toBe(true);
};

/** The page's globals that `readScreen` uses (the tests compile without DOM types). */
interface Node_ {
  tagName: string;
  innerText: string;
  nextElementSibling: Node_ | null;
  getAttribute: (name: string) => string | null;
  querySelectorAll: (s: string) => Iterable<Node_>;
  querySelector: (s: string) => Node_ | null;
}

/**
 * What the screen shows, read in one step (a screen that redraws itself cannot tear it): its
 * heading and draw count, each region's `<dt>`/`<dd>` pairs and table rows by its label, and
 * every status element's machine value and words.
 */
const readScreen = (target: Page) =>
  target.evaluate(() => {
    const main = (
      globalThis as unknown as { document: { getElementById: (id: string) => Node_ } }
    ).document.getElementById('main');
    const termsOf = (scope: Node_) =>
      Object.fromEntries(
        [...scope.querySelectorAll('dt')].map((dt) => [dt.innerText, dt.nextElementSibling?.innerText ?? '']),
      );
    const regions = Object.fromEntries(
      [...main.querySelectorAll('section[aria-label]')].map((section) => [
        section.getAttribute('aria-label') ?? '',
        {
          terms: termsOf(section),
          rows: [...section.querySelectorAll('tbody tr')].map((row) => row.innerText),
        },
      ]),
    );
    return {
      ready: main.getAttribute('data-ready'),
      title: main.querySelector('h2')?.innerText ?? '',
      terms: termsOf(main),
      rows: [...main.querySelectorAll('table tbody tr')].map((row) => row.innerText),
      regions,
      statuses: [...main.querySelectorAll('[data-status]')].map((e) => ({
        value: e.getAttribute('data-status') ?? '',
        text: e.innerText,
      })),
    };
  });

ui.describeInChromium('the console’s release gates and keyboard use', (browser) => {
  // Once under a loaded CI this journey's Enter on 'Subscribe' went nowhere: the slug form set the
  // address and called the router, and `hashchange` called it again, so the Plans screen was drawn
  // twice and the second draw replaced the focused button. The router now joins a draw of the same
  // address (lib/console/app.js); the test below counts the draws.
  it('signs in, takes a slug and starts a checkout with the keyboard only, each stop named and with a focus ring', {
    timeout: 120_000,
  }, async () => {
    const login = uniqueLogin('keys');
    const page = await ui.newConsolePage(browser());
    await page.goto(`${server.url}/`);
    await ui.drawn(page, 'Sign in');
    // The skip link is the first stop, shown when focused.
    await markFocusable(page);
    const skip = await toSkipLink(page);
    expect(skip).toMatchObject({ role: 'link', index: 0, visible: true });

    const loginField = await tabTo(page, /^Code-host login$/);
    expect(loginField).toMatchObject({ role: 'textbox', inMain: true });
    await page.keyboard.type(login);
    await page.keyboard.press('Enter');

    await ui.drawn(page, 'Choose your slug');
    const slug = await tabTo(page, /^Slug/);
    expect(slug.role).toBe('textbox');
    await page.keyboard.type(login);
    const save = await tabTo(page, /^Save slug$/);
    expect(save.role).toBe('button');
    const draws = await ui.drawCount(page);
    const meReads = await readsOfMe(page);
    await page.keyboard.press('Space');

    await ui.drawn(page, 'Plans');
    const subscribe = await tabTo(page, /^Subscribe to Standard$/);
    expect(subscribe).toMatchObject({ role: 'button', inMain: true });
    // The Plans screen was drawn once, by one route (one read of the account): a second draw would
    // replace the focused button (it did, and the Enter below went nowhere).
    expect(await readsOfMe(page)).toBe(meReads + 1);
    expect(await ui.drawCount(page)).toBe(draws + 1);
    await Promise.all([
      page.waitForURL(/\/c\/pay\/cs_\w+$/).catch(async (error: Error) => {
        throw new Error(`${error.message}\nthe page said: ${await page.innerText('body').catch(() => '?')}`);
      }),
      page.keyboard.press('Enter'),
    ]);
    // The emulator's page is the processor's, not ours: pay it as its form would, then come back.
    const paid = await cloud.pay(page.url());
    expect(paid.status).toBe(200);
    await page.goto(`${server.url}/?checkout=complete`);
    await ui.drawn(page, 'Plans');
    // The sweep makes the account active (the server sweeps when asked); the page follows by itself.
    const tenant = { login, token: (await cloud.signIn(login)).sessionToken, tenantId: '', email: '' };
    await cloud.billingStateOnceSwept(tenant, 'active');
    await ui.drawn(page, 'Stacks');
    expect((await ui.inPage(page, 'GET', '/v1/me')).body.billingState).toBe('active');
  });

  it('with a release gate down, a paying tenant’s Stacks show no Plan Change control, and the API refuses a Plan Change', async () => {
    const tenant = await cloud.payingTenant('gate', 'standard', { dispatcher: false });
    await withGateDown(async () => {
      const page = await ui.consolePageOf(browser(), server, tenant, '#/stacks', 'Stacks');
      const me = (await ui.inPage(page, 'GET', '/v1/me')).body;
      expect(me.planChangeControls).toEqual({
        visible: false,
        gates: Object.fromEntries(PLAN_CHANGE_GATES.map((gate) => [gate, gate !== GATE_DOWN])),
      });
      const { stacks } = (await ui.inPage(page, 'GET', '/v1/stacks')).body;
      expect(stacks).toHaveLength(1);
      const stack = stacks[0];
      expect(stack.name).toBe(`${tenant.login}.stacks.localhost`);

      // The Stack is shown with what the API allows (Add Project, Add a Stack), and no Plan Change.
      const card = page.getByRole('region', { name: `Stack ${stack.name}` });
      await expect(card.innerText()).resolves.toMatch(/Plan\s+Standard/);
      await expect(card.getByRole('button', { name: 'Add Project' }).count()).resolves.toBe(1);
      await expect(page.getByRole('region', { name: 'Add a Stack' }).count()).resolves.toBe(1);
      await expect(page.getByRole('button', { name: 'Preview Change' }).count()).resolves.toBe(0);
      await expect(page.getByRole('button', { name: 'Confirm Plan Change' }).count()).resolves.toBe(0);
      await expect(page.getByRole('form', { name: /^Change the Plan/ }).count()).resolves.toBe(0);
      await expect(page.getByLabel('New Plan').count()).resolves.toBe(0);
      expect(await page.innerText('main')).not.toMatch(/Plan Change|Preview Change|Change the Plan/i);
      await ui.check(page, 'access-01-stacks-gate-down', 'Stacks');

      // What is hidden is what the API refuses: the preview and the confirmation, nothing started.
      for (const [path, body] of [
        [`/v1/stacks/${stack.stackId}/plan-changes/preview`, { plan: 'plus' }],
        [`/v1/stacks/${stack.stackId}/plan-changes`, { plan: 'plus' }],
      ] as const) {
        const refused = await ui.inPage(page, 'POST', path, body);
        expect(refused.status, path).toBe(409);
        expect(refused.body.error.code, path).toBe('plan_changes_unavailable');
        expect(refused.body.gatesNotReady, path).toEqual([GATE_DOWN]);
      }
      expect((await ui.inPage(page, 'GET', '/v1/plan-changes')).body.planChanges).toEqual([]);
      expect((await ui.inPage(page, 'GET', '/v1/stacks')).body.stacks[0].plan).toBe('standard');

      // The Plan Changes page lists the history (none) and offers no way to start one.
      await page
        .getByRole('navigation', { name: 'Console' })
        .getByRole('link', { name: 'Plan Changes' })
        .focus();
      await page.keyboard.press('Enter');
      await ui.drawn(page, 'Plan Changes');
      const text = await page.innerText('main');
      expect(text).toContain('No Plan Changes: they are not available yet.');
      expect(text).not.toMatch(/Start one|Stacks page/);
      await expect(page.locator('main').getByRole('button').count()).resolves.toBe(0);
      await expect(page.locator('main').getByRole('link').count()).resolves.toBe(0);
      await ui.check(page, 'access-02-plan-changes-gate-down', 'Plan Changes');
    });
  }, 60_000);

  it('with a release gate down, Account & Billing has no “Change a Stack’s Plan” section; with every gate up the same Stack gets it', async () => {
    const tenant = await cloud.payingTenant('gate-account', 'standard', { dispatcher: false });
    const section = (page: Page) => page.getByRole('region', { name: 'Change a Stack’s Plan' });
    await withGateDown(async () => {
      const page = await ui.consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');
      expect((await ui.inPage(page, 'GET', '/v1/me')).body.planChangeControls.visible).toBe(false);
      // The screen is drawn whole (the invoices are its last card): nothing of the Plan Change in it.
      await page.getByRole('region', { name: 'Invoices' }).waitFor();
      await expect(section(page).count()).resolves.toBe(0);
      await expect(page.getByRole('button', { name: 'Preview Change' }).count()).resolves.toBe(0);
      await expect(page.getByLabel('New Plan').count()).resolves.toBe(0);
      expect(await page.innerText('main')).not.toMatch(/Change a Stack|Preview Change|Plan Change/i);
      await ui.check(page, 'access-03-account-gate-down', 'Account & Billing');
      await page.close();
    });
    // Every gate up: the same tenant's Account & Billing offers the change (what the gate hid).
    const page = await ui.consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');
    await expect(section(page).innerText()).resolves.toContain(`${tenant.stackName}: Standard now`);
    await expect(section(page).getByRole('button', { name: 'Preview Change' }).count()).resolves.toBe(1);
  }, 60_000);

  it('walks Account & Billing and the Stacks with Tab: every control reached in order, named, with a focus ring; the skip link goes to the screen', async () => {
    const tenant = await cloud.payingTenant('walk', 'standard', { dispatcher: false });
    const page = await ui.consolePageOf(browser(), server, tenant, '#/stacks', 'Stacks');
    for (const [link, title] of [
      ['Account & Billing', 'Account & Billing'],
      ['Stacks', 'Stacks'],
    ] as const) {
      // Through the header's link, with the keyboard.
      await toSkipLink(page);
      await tabTo(page, new RegExp(`^${link}$`));
      await page.keyboard.press('Enter');
      await ui.drawn(page, title);
      expect(page.url()).toMatch(title === 'Stacks' ? /#\/stacks$/ : /#\/account$/);
      const visited = await walkScreen(page);
      const names = visited.map((v) => `${v.role} ${v.name}`);
      // The header's links and Sign out, then the screen's own controls.
      expect(names.slice(0, 7)).toEqual([
        'link Skip to content',
        'link Account & Billing',
        'link Stacks',
        'link Plan Changes',
        'link Credentials',
        'link Export',
        'button Sign out',
      ]);
      if (title === 'Stacks') {
        // Every gate is up: the Plan Change controls are reached too.
        expect(names).toEqual(
          expect.arrayContaining([
            'textbox Project name',
            'button Add Project',
            'button Preview the cost',
            'combobox New Plan',
            'button Preview Change',
          ]),
        );
      } else {
        expect(names).toContain('button Open the billing portal');
      }
      await skipToMain(page, title);
      await ui.check(page, `access-03-keyboard-${title === 'Stacks' ? 'stacks' : 'account'}`, title);
    }
  }, 90_000);

  it('says every status in words: the billing state, a Stack’s state, an export’s status', async () => {
    const tenant = await cloud.payingTenant('words', 'standard', { dispatcher: false });
    const page = await ui.consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');
    const account = await readScreen(page);
    expect(account.terms['Billing state']).toBe('Active');
    expect(account.rows.join('\n')).toMatch(/Not paid yet\s+Active\s+The first payment was made/);

    await page.goto(`${server.url}/#/stacks`);
    await ui.drawn(page, 'Stacks');
    const stack = (await ui.inPage(page, 'GET', '/v1/stacks')).body.stacks[0];
    const stacks = await readScreen(page);
    const card = stacks.regions[`Stack ${stack.name}`];
    expect(card?.terms.State).toBe(stack.lifecycle.replaceAll('_', ' '));
    expect(card?.terms.Health).toMatch(new RegExp(`^${stack.health.replaceAll('_', ' ')}`));

    // An export, started with the keyboard: its status is a word on the card and in the table.
    await page.goto(`${server.url}/#/export/${stack.stackId}`);
    await ui.drawn(page, `Export ${stack.name}`);
    await tabTo(page, /^Start an export$/);
    await page.keyboard.press('Enter');
    await page.getByRole('region', { name: 'The last export' }).waitFor();
    await ui.drawn(page, `Export ${stack.name}`);
    // Nothing polls the Dispatcher here, so the export waits as `requested`; read in one step all the same.
    const shown = await readScreen(page);
    const last = shown.statuses[0];
    expect(last?.value).toBe('requested');
    expect(last?.text).toBe('requested');
    expect(shown.regions['The last export']?.terms.Status).toBe('requested');
    expect(shown.regions['Recent exports']?.rows[0]).toContain('requested');
    // Every status on the screen carries its state in its text, not only in a class or a colour.
    expect(shown.statuses.length).toBeGreaterThan(0);
    for (const status of shown.statuses) expect(status.text).toContain(status.value.replaceAll('_', ' '));
    await ui.check(page, 'access-04-export-status', `Export ${stack.name}`);
  }, 60_000);
});
