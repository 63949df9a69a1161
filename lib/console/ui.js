// What every screen of the console uses: the page's fixed elements, the screen itself, forms and
// buttons that show their errors in words, the poll that follows a screen, and the route back to
// the router (lib/console/app.js sets it at startup, so no screen imports the router).
import { ApiError, api } from './api.js';
import { count, h, label, option } from './dom.js';

export const main = /** @type {HTMLElement} */ (document.getElementById('main'));
export const nav = /** @type {HTMLElement} */ (document.getElementById('nav'));
export const navLinks = /** @type {HTMLElement} */ (document.getElementById('nav-links'));
const status = /** @type {HTMLElement} */ (document.getElementById('status'));

/** @type {number | undefined} */
let pollTimer;

/** @type {() => Promise<unknown>} */
let router = async () => undefined;

/** Shows the screen of the address again: the router's `route()` (the only one, set by app.js). */
export const route = () => router();

/** Called once by app.js with its router. */
export const setRoute = (/** @type {() => Promise<unknown>} */ fn) => {
  router = fn;
};

/** Stops following the screen that is being replaced. */
export const stopPolling = () => window.clearTimeout(pollTimer);

export const say = (/** @type {string} */ text) => {
  status.textContent = text;
};

/** How many screens this page load has drawn. */
let drawn = 0;

/**
 * The screen is being replaced: `main` loses `data-ready` until the next one is drawn (the router
 * calls this before it loads what the next screen shows).
 */
export const drawing = () => main.removeAttribute('data-ready');

/** Names the screen at the top of the page, before the skip link (index.html). */
const screenTitle = /** @type {HTMLElement} */ (document.getElementById('screen-title'));

/**
 * Replaces the screen, its heading first. Focus goes to the screen's name at the top of the page
 * (read by a screen reader, not shown), so the first Tab on every screen is the skip link, then the
 * navigation, then the screen. Once drawn, `main` carries `data-ready` (the count of screens drawn),
 * the signal the browser tests wait for after a route change instead of a fixed time.
 */
export const screen = (/** @type {string} */ title, /** @type {(Node|string)[]} */ ...children) => {
  const heading = h('h2', {}, title);
  main.replaceChildren(heading, ...children);
  document.title = `${title} · Stack Control Plane`;
  screenTitle.textContent = title;
  screenTitle.focus();
  drawn += 1;
  main.dataset.ready = String(drawn);
};

export const errorBox = (/** @type {unknown} */ error) =>
  h(
    'p',
    { class: 'error', role: 'alert' },
    `Error: ${error instanceof Error ? error.message : String(error)}`,
  );

/** A form whose submit runs `action`; its errors are shown inside it, in words. */
export const form = (
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

export const button = (
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

/**
 * A control asked first in the page: its button shows the question with Confirm and Keep buttons;
 * nothing is done until Confirm (Keep puts the button back). Answers the button and the place
 * where the question shows.
 */
export const askFirst = (
  /** @type {{ label: string, question: string, confirmText: string, keepText: string, onConfirm: () => Promise<void> | void }} */ o,
) => {
  const out = h('div', {});
  const ask = button(
    o.label,
    () => {
      const keep = button(o.keepText, () => {
        out.replaceChildren();
        ask.hidden = false;
        ask.focus();
      });
      const confirm = button(o.confirmText, o.onConfirm);
      ask.hidden = true;
      out.replaceChildren(
        h('div', { role: 'alert', class: 'confirm' }, h('p', {}, o.question), h('p', {}, confirm, ' ', keep)),
      );
      confirm.focus();
    },
    'secondary',
  );
  return /** @type {[HTMLElement, HTMLElement]} */ ([ask, out]);
};

export const dl = (/** @type {[string, Node|string][]} */ rows) =>
  h('dl', {}, ...rows.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]));

export const resources = (/** @type {any} */ r) =>
  `${r.vcpu} ${r.vcpuKind} vCPU, ${r.memoryGb} GB memory, ${r.storageGb} GB storage`;
export const caps = (/** @type {any} */ c) =>
  `${count(c.runCap, 'run')} at once, ${c.reserveCap} in reserve, ${count(c.watchedProjectsCap, 'watched Project')}`;

/**
 * A table with a caption, column headers, and a row of cells per entry. The `amounts` columns (by
 * index) hold amounts: right-aligned, never broken over lines (console.css `.amount`).
 */
export const table = (
  /** @type {string} */ caption,
  /** @type {string[]} */ columns,
  /** @type {(Node|string)[][]} */ rows,
  /** @type {number[]} */ amounts = [],
) => {
  const cell = (/** @type {string} */ tag, /** @type {number} */ index, /** @type {Node|string} */ c) =>
    h(
      tag,
      { ...(tag === 'th' ? { scope: 'col' } : {}), ...(amounts.includes(index) ? { class: 'amount' } : {}) },
      c,
    );
  return h(
    'table',
    {},
    h('caption', { class: 'muted' }, caption),
    h('thead', {}, h('tr', {}, ...columns.map((c, i) => cell('th', i, c)))),
    h('tbody', {}, ...rows.map((cells) => h('tr', {}, ...cells.map((c, i) => cell('td', i, c))))),
  );
};

/** An amount in a sentence or a list: kept on one line (console.css `.amount`). */
export const amountText = (/** @type {string} */ text) => h('span', { class: 'amount' }, text);

/**
 * Runs a redraw of the screen that follows itself (a poll), and gives the focus back to the control
 * that had it, found again by its card and its name: a redraw must not take a person's place away.
 */
export const redrawKeepingFocus = async (/** @type {() => Promise<unknown>} */ redraw) => {
  const focused = document.activeElement;
  const inScreen = focused instanceof HTMLElement && focused !== main && main.contains(focused);
  const card = inScreen ? focused.closest('[aria-label]')?.getAttribute('aria-label') : undefined;
  const name = inScreen ? focused.textContent : undefined;
  await redraw();
  if (!inScreen) return;
  const again = [...main.querySelectorAll(focused.tagName)].find(
    (e) =>
      e.textContent === name && (e.closest('[aria-label]')?.getAttribute('aria-label') ?? undefined) === card,
  );
  if (again instanceof HTMLElement) again.focus();
};

/** A Plan's name from its value (the value itself for a Plan the list does not hold). */
export const planName = (/** @type {any[]} */ plans, /** @type {string} */ value) =>
  plans.find((p) => p.value === value)?.name ?? value;

/** Re-runs `check` every 1.5 s while this screen is shown; `then` once it says done. */
export const poll = (/** @type {() => Promise<boolean>} */ check, /** @type {() => unknown} */ then) => {
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

/** `#/<screen>/<stackId>/<more>` → its parts. */
export const hashParts = () => location.hash.split('/').slice(1).map(decodeURIComponent);

/** A Stack picker that moves to `#/<base>/<stackId>`; the chosen Stack, else the first. */
export const stackPicker = (
  /** @type {string} */ base,
  /** @type {any[]} */ stacks,
  /** @type {any} */ chosen,
) =>
  form(
    'Choose a Stack',
    [
      label(
        'Stack',
        h(
          'select',
          { name: 'stack', id: `${base}-stack` },
          ...stacks.map((/** @type {any} */ s) => option(s.stackId, s.name, s.stackId === chosen.stackId)),
        ),
      ),
    ],
    'Show this Stack',
    async (data) => {
      location.hash = `#/${base}/${encodeURIComponent(String(data.get('stack')))}`;
    },
  );

export const pickStack = async (/** @type {string | undefined} */ wanted) => {
  const { stacks } = await api('GET', '/v1/stacks');
  const chosen = stacks.find((/** @type {any} */ s) => s.stackId === wanted) ?? stacks[0];
  return { stacks, chosen };
};

/** Where the address is kept across the code host's sign-in (this tab only). */
const RETURN_TO = 'scp-return-to';

/** Keeps the screen's address (`#/account`) to come back to after the code host's sign-in. */
export const rememberAddress = () => {
  if (/^#\/[a-z-]/.test(location.hash)) sessionStorage.setItem(RETURN_TO, location.hash);
  else sessionStorage.removeItem(RETURN_TO);
};

/** Once signed in: back to the address kept before the sign-in, when the page landed without one. */
export const returnToAddress = () => {
  const kept = sessionStorage.getItem(RETURN_TO);
  sessionStorage.removeItem(RETURN_TO);
  if (kept && /^#\/[a-z-]/.test(kept) && (location.hash === '' || location.hash === '#'))
    history.replaceState(null, '', `${location.pathname}${location.search}${kept}`);
};
