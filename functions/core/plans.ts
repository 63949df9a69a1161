/** The Stack Plans of spec §2 (Plan table) and §8 (Limits). Prices are monthly, USD, before tax. */

export const PLAN_VALUES = ['standard', 'plus', 'pro'] as const;
export type PlanValue = (typeof PLAN_VALUES)[number];

/** Checkout's default when no Plan is named (spec §4). */
export const DEFAULT_PLAN: PlanValue = 'standard';

export interface Money {
  /** Integer minor units (cents for USD). */
  amount: number;
  /** ISO 4217 code. */
  currency: 'USD';
}

export interface HostedResources {
  vcpu: number;
  vcpuKind: 'shared';
  memoryGb: number;
  storageGb: number;
}

export interface Plan {
  value: PlanValue;
  name: string;
  monthlyPrice: Money;
  resources: HostedResources;
  runCap: number;
  reserveCap: number;
  watchedProjectsCap: number;
}

const usd = (dollars: number): Money => ({ amount: dollars * 100, currency: 'USD' });

export const PLANS: Readonly<Record<PlanValue, Plan>> = {
  standard: {
    value: 'standard',
    name: 'Standard',
    monthlyPrice: usd(40),
    resources: { vcpu: 2, vcpuKind: 'shared', memoryGb: 4, storageGb: 40 },
    runCap: 1,
    reserveCap: 1,
    watchedProjectsCap: 3,
  },
  plus: {
    value: 'plus',
    name: 'Plus',
    monthlyPrice: usd(50),
    resources: { vcpu: 4, vcpuKind: 'shared', memoryGb: 8, storageGb: 80 },
    runCap: 3,
    reserveCap: 1,
    watchedProjectsCap: 6,
  },
  pro: {
    value: 'pro',
    name: 'Pro',
    monthlyPrice: usd(60),
    resources: { vcpu: 8, vcpuKind: 'shared', memoryGb: 16, storageGb: 160 },
    runCap: 5,
    reserveCap: 2,
    watchedProjectsCap: 12,
  },
};

/** The catalog in the spec's order: the same list the checkout and the add-a-Stack picker use. */
export const planCatalog = (): Plan[] => PLAN_VALUES.map((value) => PLANS[value]);

export const isPlanValue = (value: unknown): value is PlanValue =>
  typeof value === 'string' && (PLAN_VALUES as readonly string[]).includes(value);
