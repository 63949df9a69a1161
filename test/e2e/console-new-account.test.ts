import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { consoleWorld } from '../support/console-world.ts';
import { uniqueLogin } from '../support/local-cloud.ts';

/**
 * A returning customer in the console (Debian's headless Chromium against the shared `npm start`):
 * an account closed before it ever paid is torn down by the sweep; the first screen then offers a
 * new account with the same sign-in, in our words; a new slug starts it and the Plans follow. The
 * screen is screenshotted (`new-account-*.png`) and checked with axe-core.
 */

const { server, ui } = consoleWorld();
const main = (page: Page) => page.innerText('main');

ui.describeInChromium('a returning customer in the console', (browser) => {
  it('after the account closed and was torn down: the first screen offers a new account; a new slug starts it and the Plans follow', async () => {
    const page = await ui.newConsolePage(browser());
    const login = uniqueLogin('back');
    await ui.signUpInConsole(page, server, login);
    expect((await ui.inPage(page, 'POST', '/v1/tenant/close')).status).toBe(202);
    await ui.call(server, 'POST', '/_local/sweep');
    await page.reload();
    await ui.check(page, 'new-account-01-offer', 'Start a new account');
    const offer = await main(page);
    expect(offer).toContain('You can start a new account with the same sign-in');
    expect(offer).toContain(`Your account "${login}" has closed`);
    expect(offer).toContain('no Founding Price Lock');

    const slug = `${login}-2`;
    await page.getByRole('textbox', { name: /^New slug/ }).fill(slug);
    await page.getByRole('button', { name: 'Start the new account' }).click();
    await ui.drawn(page, 'Plans');
    const me = (await ui.inPage(page, 'GET', '/v1/me')).body;
    expect(me).toMatchObject({ slug, billingState: 'provisioning', newAccount: null });
    expect(me.formerAccounts).toEqual([
      { slug: login, leftBy: 'closed_by_tenant', closedAt: expect.any(String) },
    ]);
    await ui.check(page, 'new-account-02-plans', 'Plans');
  }, 120_000);
});
