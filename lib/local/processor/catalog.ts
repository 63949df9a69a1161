import { randomBytes } from 'node:crypto';
import type { EmulatorContext } from './context.ts';
import { fail, missing, StripeApiError } from './errors.ts';
import { bool, type FormObject, int, list, obj, str, stringMap } from './form.ts';

/** Customers, products, prices, coupons and promotion codes. */

const listOf = <T>(data: T[], url: string) => ({ object: 'list', data, has_more: false, url });

/** `address[country]` when given: an ISO code, upper case. */
const countryOf = (params: FormObject): string | undefined => {
  const country = str(obj(params.address).country)?.trim().toUpperCase();
  if (country !== undefined && !/^[A-Z]{2}$/.test(country))
    throw new StripeApiError(400, 'address[country] must be a two-letter country code.', {
      param: 'address[country]',
    });
  return country;
};

export const createCustomer = (ctx: EmulatorContext, params: FormObject) => {
  const id = ctx.newId('cus');
  const country = countryOf(params);
  ctx.state.customers[id] = {
    id,
    email: str(params.email) ?? null,
    name: str(params.name) ?? null,
    metadata: stringMap(params.metadata),
    created: ctx.nowSeconds(),
    hasAddress: Boolean(country),
    country: country ?? null,
    balance: int(params.balance) ?? 0,
    defaultPaymentMethod: null,
  };
  return ctx.render.customer(ctx.state.customers[id] as never);
};

export const updateCustomer = (ctx: EmulatorContext, id: string, params: FormObject) => {
  const customer = ctx.state.customers[id] ?? fail(missing('customer', id));
  if (str(params.email) !== undefined) customer.email = str(params.email) ?? null;
  if (str(params.name) !== undefined) customer.name = str(params.name) ?? null;
  const country = countryOf(params);
  if (country) {
    customer.country = country;
    customer.hasAddress = true;
  }
  if (int(params.balance) !== undefined) customer.balance = int(params.balance);
  customer.metadata = { ...customer.metadata, ...stringMap(params.metadata) };
  return ctx.render.customer(customer);
};

export const getCustomer = (ctx: EmulatorContext, id: string) =>
  ctx.render.customer(ctx.state.customers[id] ?? fail(missing('customer', id)));

export const createProduct = (ctx: EmulatorContext, params: FormObject) => {
  const name = str(params.name);
  if (!name) throw new StripeApiError(400, 'Missing required param: name.', { param: 'name' });
  const id = str(params.id) ?? ctx.newId('prod');
  if (ctx.state.products[id])
    throw new StripeApiError(400, `Product already exists.`, {
      code: 'resource_already_exists',
      param: 'id',
    });
  ctx.state.products[id] = {
    id,
    name,
    active: bool(params.active) ?? true,
    metadata: stringMap(params.metadata),
    created: ctx.nowSeconds(),
  };
  return ctx.render.product(ctx.state.products[id] as never);
};

export const getProduct = (ctx: EmulatorContext, id: string) =>
  ctx.render.product(ctx.state.products[id] ?? fail(missing('product', id)));

export const listProducts = (ctx: EmulatorContext) =>
  listOf(
    Object.values(ctx.state.products).map((p) => ctx.render.product(p)),
    '/v1/products',
  );

export const createPrice = (ctx: EmulatorContext, params: FormObject) => {
  const { state } = ctx;
  const product = str(params.product);
  if (!product || !state.products[product]) throw missing('product', product ?? '', 'product');
  const unitAmount = int(params.unit_amount);
  if (unitAmount === undefined || unitAmount < 0)
    throw new StripeApiError(400, 'Missing required param: unit_amount.', { param: 'unit_amount' });
  const currency = str(params.currency)?.toLowerCase();
  if (!currency) throw new StripeApiError(400, 'Missing required param: currency.', { param: 'currency' });
  const interval = str(obj(params.recurring).interval);
  if (interval !== 'month' && interval !== 'year')
    throw new StripeApiError(400, 'recurring[interval] must be month or year here.', {
      param: 'recurring[interval]',
    });
  const lookupKey = str(params.lookup_key) ?? null;
  if (lookupKey) {
    const holder = Object.values(state.prices).find((p) => p.lookupKey === lookupKey);
    if (holder) {
      if (!bool(params.transfer_lookup_key)) {
        throw new StripeApiError(400, `A price (\`${holder.id}\`) already uses that lookup key.`, {
          param: 'lookup_key',
        });
      }
      holder.lookupKey = null;
    }
  }
  const id = ctx.newId('price');
  state.prices[id] = {
    id,
    product,
    unitAmount,
    currency,
    interval,
    lookupKey,
    nickname: str(params.nickname) ?? null,
    active: true,
    metadata: stringMap(params.metadata),
    created: ctx.nowSeconds(),
  };
  return ctx.render.price(state.prices[id] as never);
};

export const updatePrice = (ctx: EmulatorContext, id: string, params: FormObject) => {
  const price = ctx.state.prices[id] ?? fail(missing('price', id));
  if (bool(params.active) !== undefined) price.active = bool(params.active) ?? price.active;
  price.metadata = { ...price.metadata, ...stringMap(params.metadata) };
  return ctx.render.price(price);
};

export const getPrice = (ctx: EmulatorContext, id: string) =>
  ctx.render.price(ctx.state.prices[id] ?? fail(missing('price', id)));

export const listPrices = (ctx: EmulatorContext, params: FormObject) => {
  const lookupKeys = list(params.lookup_keys).map((v) => str(v));
  const active = bool(params.active);
  return listOf(
    Object.values(ctx.state.prices)
      .filter(
        (p) =>
          (lookupKeys.length === 0 || (p.lookupKey !== null && lookupKeys.includes(p.lookupKey))) &&
          (active === undefined || p.active === active) &&
          (!str(params.product) || p.product === str(params.product)),
      )
      .map((p) => ctx.render.price(p)),
    '/v1/prices',
  );
};

export const createCoupon = (ctx: EmulatorContext, params: FormObject) => {
  const percentOff = str(params.percent_off) === undefined ? null : Number(str(params.percent_off));
  const amountOff = int(params.amount_off) ?? null;
  if ((percentOff === null) === (amountOff === null))
    throw new StripeApiError(400, 'Provide exactly one of percent_off or amount_off.', {
      param: 'percent_off',
    });
  const duration = str(params.duration) ?? 'once';
  if (duration !== 'once' && duration !== 'repeating' && duration !== 'forever')
    throw new StripeApiError(400, 'Invalid duration.', { param: 'duration' });
  const durationInMonths = int(params.duration_in_months) ?? null;
  if (duration === 'repeating' && !durationInMonths)
    throw new StripeApiError(400, 'duration_in_months is required for a repeating coupon.', {
      param: 'duration_in_months',
    });
  const id = str(params.id) ?? ctx.newId('coupon').slice(7, 15);
  if (ctx.state.coupons[id])
    throw new StripeApiError(400, 'Coupon already exists.', { code: 'resource_already_exists', param: 'id' });
  ctx.state.coupons[id] = {
    id,
    name: str(params.name) ?? null,
    percentOff,
    amountOff,
    currency: str(params.currency) ?? (amountOff ? 'usd' : null),
    duration,
    durationInMonths,
    created: ctx.nowSeconds(),
    timesRedeemed: 0,
  };
  return ctx.render.coupon(ctx.state.coupons[id] as never);
};

export const createPromotionCode = (ctx: EmulatorContext, params: FormObject) => {
  const { state } = ctx;
  const coupon = str(obj(params.promotion).coupon) ?? str(params.coupon);
  if (!coupon || !state.coupons[coupon]) throw missing('coupon', coupon ?? '', 'promotion[coupon]');
  const code = str(params.code) ?? randomBytes(4).toString('hex').toUpperCase();
  if (
    Object.values(state.promotionCodes).some((p) => p.active && p.code.toLowerCase() === code.toLowerCase())
  ) {
    throw new StripeApiError(400, 'An active promotion code with this code already exists.', {
      param: 'code',
    });
  }
  const id = ctx.newId('promo');
  state.promotionCodes[id] = {
    id,
    code,
    coupon,
    active: bool(params.active) ?? true,
    maxRedemptions: int(params.max_redemptions) ?? null,
    timesRedeemed: 0,
    created: ctx.nowSeconds(),
    metadata: stringMap(params.metadata),
  };
  return ctx.render.promotionCode(state.promotionCodes[id] as never);
};

export const listPromotionCodes = (ctx: EmulatorContext, params: FormObject) =>
  listOf(
    Object.values(ctx.state.promotionCodes)
      .filter((p) => !str(params.code) || p.code === str(params.code))
      .map((p) => ctx.render.promotionCode(p)),
    '/v1/promotion_codes',
  );
