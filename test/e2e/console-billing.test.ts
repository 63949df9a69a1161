import { expect, it } from 'vitest';
import { check, consolePageOf, describeInChromium, inPage } from '../support/console-browser.ts';
import { localClient, sharedCloud } from '../support/local-cloud.ts';

/**
 * Account & Billing shows the money, in Debian's headless Chromium against the shared `npm start`:
 * what the tenant pays this period (a line per Stack and Plan), the next invoice's date and amount
 * (the processor's upcoming invoice), the card on file, the invoices newest first with a link to
 * the processor's hosted page, and the billing history newest first in words. Screenshots
 * `billing-NN-*.png`; axe on each state; no processor id on the screen.
 */

const server = sharedCloud();
const cloud = localClient(() => server);

describeInChromium('Account & Billing shows the money', (browser) => {
  it('shows what is paid now and next, the card, the invoices and the history in words', async () => {
    const tenant = await cloud.payingTenant('billing', 'standard', { dispatcher: false });
    const page = await consolePageOf(browser(), server, tenant, '#/account', 'Account & Billing');

    const paying = page.getByRole('region', { name: 'What you pay' });
    const summary = (await inPage(page, 'GET', '/v1/billing/summary')).body;
    const paid = await paying.innerText();
    // This period: one line for the Stack on its Plan, the total; the next invoice's date and amount.
    expect(paid).toMatch(new RegExp(`${tenant.stackName.replaceAll('.', '\\.')} on Standard\\s+\\$40\\.00`));
    expect(paid).toMatch(/Total\s+\$40\.00/);
    expect(summary.nextInvoice.amountDue).toBe(4000);
    const nextDay = await page.evaluate(
      (iso) =>
        new Date(iso).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' }),
      summary.nextInvoice.invoiceAt,
    );
    expect(paid).toContain(`On ${nextDay}, an estimated $40.00 will be charged.`);
    expect(paid).toMatch(/Visa ending in 4242, expires 12\/\d{4}\. You change it in the billing portal\./);
    await check(page, 'billing-01-what-you-pay', 'Account & Billing');

    // The invoices, newest first: the one paid at checkout, with the processor's page.
    const invoices = page.getByRole('region', { name: 'Invoices' });
    const listed = (await inPage(page, 'GET', '/v1/billing/invoices')).body.invoices;
    expect(listed).toHaveLength(1);
    const rows = await invoices.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(new RegExp(`${listed[0].number}\\s+\\$40\\.00\\s+Paid`));
    const link = invoices.getByRole('link', { name: `View invoice ${listed[0].number}` });
    const href = (await link.getAttribute('href')) ?? '';
    expect(new URL(href).origin).toBe(new URL(server.environment().PROCESSOR_API_URL ?? '').origin);

    // The history, newest first, its reasons in words.
    const history = await page
      .getByRole('table', { name: 'Changes of billing state, newest first' })
      .innerText();
    expect(history).toMatch(/Not paid yet\s+Active\s+The first payment was made: the subscription started\./);

    // The processor's hosted page for that invoice.
    await Promise.all([page.waitForURL(href), link.click()]);
    expect(await page.innerText('h1')).toBe(`Invoice ${listed[0].number}`);
    expect(await page.innerText('body')).toMatch(/paid/);
  }, 90_000);
});
