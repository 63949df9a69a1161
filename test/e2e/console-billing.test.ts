import { expect, it } from 'vitest';
import { consoleWorld } from '../support/console-world.ts';
import { uniqueLogin } from '../support/local-cloud.ts';

/**
 * Account & Billing shows the money, in Debian's headless Chromium against the shared `npm start`:
 * what the tenant pays this period (a line per Stack and Plan), the next invoice's date and amount
 * (the processor's upcoming invoice), the card on file, the invoices newest first with links of
 * ours to the processor's hosted page and PDF, and the billing history newest first in words. Screenshots
 * `billing-NN-*.png`; axe on each state; no processor id on the screen. Then the controls around it:
 * Remove Project asked first in the page, a refusal's words naming the control (the API call in
 * `apiHint`), and a sign-up that loads without a console error or a missing file (favicon, the
 * slug's pattern).
 */

const { server, cloud, ui } = consoleWorld();

ui.describeInChromium('Account & Billing shows the money', (browser) => {
  it('shows what is paid now and next, the card, the invoices and the history in words', async () => {
    const tenant = await cloud.payingTenant('billing', 'standard', { dispatcher: false });
    const page = await ui.consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');

    const paying = page.getByRole('region', { name: 'What you pay' });
    const summary = (await ui.inPage(page, 'GET', '/v1/billing/summary')).body;
    const paid = await paying.innerText();
    // This period: one line for the Stack on its Plan, the total; the next invoice's date and amount.
    expect(paid).toMatch(
      new RegExp(`${tenant.stackName.replaceAll('.', '\\.')} on Standard: a month, [^\\n\\t]+\\s+\\$40\\.00`),
    );
    expect(paid).toMatch(/Total\s+\$40\.00/);
    expect(summary.nextInvoice.amountDue).toBe(4000);
    const nextDay = await page.evaluate(
      (iso) =>
        new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' }),
      summary.nextInvoice.invoiceAt,
    );
    expect(paid).toContain(`On ${nextDay}, an estimated $40.00 will be charged.`);
    expect(paid).toMatch(/Visa ending in 4242, expires 12\/\d{4}\. You change it in the billing portal\./);
    await ui.check(page, 'billing-01-what-you-pay', 'Account & Billing');

    // The invoices, newest first: the one paid at checkout, with the processor's page.
    const invoices = page.getByRole('region', { name: 'Invoices' });
    const listed = (await ui.inPage(page, 'GET', '/v1/billing/invoices')).body.invoices;
    expect(listed).toHaveLength(1);
    const rows = await invoices.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(new RegExp(`${listed[0].number}\\s+\\$40\\.00\\s+Paid`));
    // Its links are ours (issue 35, item 5): our route, which redirects to the processor's page and PDF.
    const link = invoices.getByRole('link', { name: `View invoice ${listed[0].number}` });
    const href = (await link.getAttribute('href')) ?? '';
    expect(href).toBe(`/v1/billing/invoices/${listed[0].ref}/view`);
    expect(
      await invoices.getByRole('link', { name: `PDF of ${listed[0].number}` }).getAttribute('href'),
    ).toBe(`/v1/billing/invoices/${listed[0].ref}/pdf`);
    expect(await invoices.innerHTML()).not.toMatch(/\b(in|cus|sub|acct)_|\/i\//);

    // The history, newest first, its reasons in words.
    const history = await page
      .getByRole('table', { name: 'Changes of billing state, newest first' })
      .innerText();
    expect(history).toMatch(/Not paid yet\s+Active\s+The first payment was made: the subscription started\./);

    // The processor's hosted page for that invoice, through our redirect.
    const processorOrigin = new URL(server.environment().PROCESSOR_API_URL ?? '').origin;
    await Promise.all([page.waitForURL((url) => url.origin === processorOrigin), link.click()]);
    expect(await page.innerText('h1')).toBe(`Invoice ${listed[0].number}`);
    expect(await page.innerText('body')).toMatch(/paid/);
  }, 90_000);

  it('removes a Project only after the in-page confirmation; the watched-cap refusal names the Remove control', async () => {
    const tenant = await cloud.payingTenant('remover', 'standard', { dispatcher: false });
    const page = await ui.consolePageOf(browser(), server, tenant, '#/stacks', 'Stacks');
    const projects = `/v1/stacks/${tenant.stackId}/projects`;
    for (const name of ['web', 'api', 'docs']) {
      const added = await ui.inPage(page, 'POST', projects, { name, repository: `acme/${name}` });
      expect(added.status, name).toBe(201);
    }
    // A fourth is over Standard's cap: the message says what to do in the console, the call apart.
    const refused = await ui.inPage(page, 'POST', projects, { name: 'four', repository: 'acme/four' });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe(
      "This Stack watches 3 Projects, its Plan's cap: remove one with its Remove button, or change the Stack to a larger Plan.",
    );
    expect(refused.body.error.apiHint).toBe(`DELETE /v1/stacks/${tenant.stackId}/projects/{projectId}`);

    await page.reload();
    await ui.drawn(page, 'Stacks');
    const card = page.getByRole('region', { name: `Stack ${tenant.stackName}` });
    expect(await card.innerText()).toContain('Projects (3 of 3 watched)');
    await card.getByRole('button', { name: 'Remove web' }).click();
    const asked = card.getByRole('alert');
    expect(await asked.innerText()).toContain(
      `Remove web? ${tenant.stackName} stops watching acme/web, and the Project’s Credential Routes are deleted with it.`,
    );
    await ui.check(page, 'billing-02-remove-project-asked', 'Stacks');
    // Keep it: nothing removed, the question gone.
    await card.getByRole('button', { name: 'Keep it' }).click();
    await expect(card.getByRole('alert').count()).resolves.toBe(0);
    expect((await ui.inPage(page, 'GET', projects)).body.projects).toHaveLength(3);

    await card.getByRole('button', { name: 'Remove web' }).click();
    await card.getByRole('button', { name: 'Confirm: remove web' }).click();
    await expect
      .poll(async () =>
        (await ui.inPage(page, 'GET', projects)).body.projects.map((p: { name: string }) => p.name),
      )
      .toEqual(expect.not.arrayContaining(['web']));
    await ui.drawn(page, 'Stacks');
    expect(await page.getByRole('region', { name: `Stack ${tenant.stackName}` }).innerText()).toContain(
      'Projects (2 of 3 watched)',
    );
    await ui.check(page, 'billing-03-project-removed', 'Stacks');
  }, 90_000);

  it('a sign-up loads every file and logs no console error (favicon, the slug pattern under the v flag)', async () => {
    const page = await ui.newConsolePage(browser());
    const problems: string[] = [];
    page.on('console', (message) => {
      // The 401 of GET /v1/me before sign-in is the console asking whether anyone is signed in.
      if (message.type() === 'error' && !/status of 401/.test(message.text())) problems.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() === 404) problems.push(`404 ${response.url()}`);
    });
    await ui.signUpInConsole(page, server, uniqueLogin('clean'));
    expect(problems).toEqual([]);
    const icon = await page.evaluate(
      () =>
        (
          globalThis as unknown as { document: { querySelector: (s: string) => { href: string } | null } }
        ).document.querySelector('link[rel=icon]')?.href,
    );
    const served = await fetch(icon ?? '');
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/svg+xml');
  }, 60_000);

  it('after the code host’s sign-in, the console returns to the address the person was on', async () => {
    const page = await ui.newConsolePage(browser());
    await page.goto(`${server.url}/#/account`);
    await ui.drawn(page, 'Sign in');
    await page.getByRole('link', { name: 'Sign in with the code host' }).click();
    await page.getByLabel('Sign in as (any login)').fill(uniqueLogin('returner'));
    await page.getByRole('button', { name: 'Authorize' }).click();
    // The code host sends the browser to the console's page; the console goes back to the address
    // (a new person is asked for a slug first, whatever the address).
    await ui.drawn(page, 'Choose your slug');
    expect(new URL(page.url()).hash).toBe('#/account');
  }, 60_000);

  it('on a phone the navigation wraps, Sign out on screen, and nothing widens the page', async () => {
    const tenant = await cloud.payingTenant('phone', 'standard', { dispatcher: false });
    const page = await ui.consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');
    await page.setViewportSize({ width: 390, height: 844 });
    const layout = await page.evaluate(() => {
      const g = globalThis as unknown as {
        innerWidth: number;
        document: {
          documentElement: { scrollWidth: number };
          querySelectorAll: (s: string) => Iterable<{ getBoundingClientRect: () => { right: number } }>;
        };
      };
      const boxes = [...g.document.querySelectorAll('#nav a, #sign-out')].map((e) =>
        e.getBoundingClientRect(),
      );
      // Every link and Sign out within the screen's width: nothing to scroll sideways to.
      const right = Math.max(...boxes.map((b) => b.right));
      return { right, pageWidth: g.document.documentElement.scrollWidth, width: g.innerWidth };
    });
    expect(layout.right).toBeLessThanOrEqual(layout.width);
    expect(layout.pageWidth).toBeLessThanOrEqual(layout.width);
    await ui.check(page, 'billing-04-phone', 'Account & Billing');
  }, 60_000);
});
