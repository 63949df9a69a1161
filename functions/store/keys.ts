import { billing } from './billing.ts';
import { capacitySlot, reservation } from './capacity.ts';
import { credential, guideSelection, thread } from './credentials.ts';
import { dispatcherCredential } from './dispatcher.ts';
import { stackExport } from './exports.ts';
import { history } from './history.ts';
import { idempotencyRecord } from './idempotency.ts';
import { itemLease } from './item-lease.ts';
import { oauthState } from './oauth-states.ts';
import { outbox } from './outbox.ts';
import { planChange } from './plan-changes.ts';
import { processorWindow } from './processor-budget.ts';
import { processorEvent } from './processor-events.ts';
import { project, projectRepository } from './projects.ts';
import { session } from './sessions.ts';
import { stack } from './stacks.ts';
import { sweepLease, sweepNudge } from './sweep-lease.ts';
import { slugClaim, tenant } from './tenants.ts';
import { identity, member, user } from './users.ts';
import { waitlist, waitlistWatch } from './waitlist.ts';

export type { Key } from './entity.ts';

/**
 * Every entity's primary key, by name: for tests, benches and tools that seed or read items
 * directly. Each is the entity's own `key` (each entity is declared once, in its store module,
 * with `entity()`); the code of functions/ takes keys from the entities themselves, never from
 * here (dependency-cruiser's `store-keys-for-tests-only`).
 */
export const keys = {
  tenant: tenant.key,
  slug: slugClaim.key,
  member: member.key,
  user: user.key,
  identity: identity.key,
  session: session.key,
  oauthState: oauthState.key,
  billing: billing.key,
  capacity: capacitySlot.key,
  reservation: reservation.key,
  waitlist: waitlist.key,
  waitlistWatch: waitlistWatch.key,
  history: history.key,
  stack: stack.key,
  itemLease: itemLease.key,
  processorSlot: processorWindow.key,
  processorEvent: processorEvent.key,
  sweepNudge: sweepNudge.key,
  sweepLease: sweepLease.key,
  outbox: outbox.key,
  dispatcherCredential: dispatcherCredential.key,
  project: project.key,
  projectRepository: projectRepository.key,
  idempotency: idempotencyRecord.key,
  planChange: planChange.key,
  credential: credential.key,
  guideSelection: guideSelection.key,
  thread: thread.key,
  stackExport: stackExport.key,
  customerIndex: billing.index.customer,
};
