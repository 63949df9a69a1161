// The tenant console: plain ES modules over the public API (docs/api/openapi.json), same site as
// the API so the session cookie authenticates every call. Built from DOM nodes (never innerHTML).
// This module is the router; each screen is in screens/, what they share in ui.js (docs/console.md).
import { ApiError, api } from './api.js';
import { accountScreen } from './screens/account.js';
import { credentialsScreen } from './screens/credentials.js';
import { exportScreen } from './screens/export.js';
import { newAccountNotice, newAccountScreen } from './screens/new-account.js';
import { planChangesScreen } from './screens/plan-changes.js';
import { closingScreen, plansScreen } from './screens/plans.js';
import { signInScreen, slugScreen } from './screens/sign-in.js';
import { stacksScreen } from './screens/stacks.js';
import {
  drawing,
  errorBox,
  main,
  nav,
  navLinks,
  returnToAddress,
  say,
  screen,
  setRoute,
  stopPolling,
} from './ui.js';

const ROUTES = {
  '#/account': accountScreen,
  '#/stacks': stacksScreen,
  '#/plan-changes': planChangesScreen,
  '#/credentials': credentialsScreen,
  '#/export': exportScreen,
};

const draw = async () => {
  stopPolling();
  drawing();
  let me;
  try {
    me = await api('GET', '/v1/me');
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return signInScreen();
    return screen('Something went wrong', errorBox(error));
  }
  returnToAddress();
  try {
    // Signed in: Sign out is always there; the links only once there is an account to look at.
    nav.hidden = false;
    navLinks.hidden = !me.slug || me.billingState === 'provisioning';
    // A returning customer whose account is torn down: start a new one (screens/new-account.js);
    // the closed account's Account & Billing stays readable from there (`#/account`).
    if (me.newAccount?.possible && location.hash !== '#/account') {
      navLinks.hidden = true;
      return newAccountScreen(me);
    }
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
    newAccountNotice(me);
  } catch (error) {
    // The session ended while the screen loaded: sign in again rather than show an error.
    if (error instanceof ApiError && error.status === 401) return signInScreen();
    screen('Something went wrong', errorBox(error));
  }
};

/**
 * Shows the screen of the address. A call while the same address is still being drawn joins that
 * draw instead of starting a second one: setting `location.hash` and then calling `route()` (the
 * slug form, sign-out) also fires `hashchange`, and two draws of one address replaced the first
 * screen while a person (or a test) was already using it; focus fell to the page, and an Enter on
 * the focused 'Subscribe' button went nowhere.
 */
/** @type {Promise<unknown> | undefined} */
let drawingNow;
/** @type {string | undefined} */
let drawingHash;
const route = () => {
  if (drawingNow && drawingHash === location.hash) return drawingNow;
  drawingHash = location.hash;
  const current = draw().finally(() => {
    if (drawingNow === current) drawingNow = undefined;
  });
  drawingNow = current;
  return current;
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
setRoute(route);
route();
