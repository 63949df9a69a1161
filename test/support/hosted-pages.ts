/** Drives the processor emulator's hosted pages over HTTP, as a browser without JavaScript would. */

export const TEST_CARDS = {
  succeeds: '4242 4242 4242 4242',
  declined: '4000 0000 0000 0002',
  failsLater: '4000 0000 0000 0341',
} as const;

export interface PageAnswer {
  status: number;
  location: string | null;
  html: string;
}

const post = async (url: string, fields: Record<string, string>): Promise<PageAnswer> => {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
    redirect: 'manual',
  });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
};

export const openPage = async (url: string): Promise<PageAnswer> => {
  const response = await fetch(url, { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), html: await response.text() };
};

/** Pays on the Checkout page; `country` is the one chosen on the page (it sets the tax rate). */
export const payOnCheckout = (url: string, card: string, promotionCode?: string, country?: string) =>
  post(url, {
    card_number: card,
    card_expiry: '12 / 34',
    card_cvc: '123',
    cardholder_name: 'Test Tenant',
    action: 'pay',
    ...(promotionCode ? { promotion_code: promotionCode } : {}),
    ...(country ? { country } : {}),
  });

export const applyPromotionCode = (url: string, code: string) =>
  post(url, { promotion_code: code, action: 'apply_code' });

export const updateCardInPortal = (portalUrl: string, card: string) =>
  post(`${portalUrl}/payment-method`, { card_number: card, card_expiry: '12 / 34', card_cvc: '123' });

export const cancelInPortal = (portalUrl: string) => post(`${portalUrl}/cancel`, {});

/** The "Total due today" the Checkout page shows. */
export const totalShown = (html: string): string | undefined =>
  /data-testid="total">([^<]+)</.exec(html)?.[1];
