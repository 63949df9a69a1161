import { escapeHtml } from './html.ts';
import { PLANS, type PlanValue } from './plans.ts';

/** An email as the outbox keeps it: plain, readable text and a simple HTML version. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

const htmlOf = (paragraphs: string[]) =>
  `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;max-width:36rem">${paragraphs
    .map((p) => `<p>${escapeHtml(p)}</p>`)
    .join('')}</body></html>`;

/** The waitlist email: sent once, only when the waitlisted Plan can be placed (spec §6). */
export const waitlistCapacityEmail = (params: {
  plan: PlanValue;
  homeRegion: string;
  appUrl: string;
}): EmailContent => {
  const plan = PLANS[params.plan];
  const paragraphs = [
    `Good news: the ${plan.name} Plan can now be placed in your Home Region (${params.homeRegion}).`,
    `You asked to hear when it could. Places are not held for the waitlist, so check out soon if you still want it: ${params.appUrl}`,
    `${plan.name}: US$${plan.monthlyPrice.amount / 100} per month, ${plan.resources.vcpu} shared vCPU, ${plan.resources.memoryGb} GB memory, ${plan.resources.storageGb} GB storage.`,
    'You are receiving this email once because you joined the waitlist for this Plan.',
  ];
  return {
    subject: `The ${plan.name} Plan is available`,
    text: `${paragraphs.join('\n\n')}\n`,
    html: htmlOf(paragraphs),
  };
};
