/**
 * What a Plan Change's answer holds at a given moment, as both the integration tests (in one
 * process) and the e2e tests (on `npm start`) read it.
 */

/** Just confirmed: waiting for the Dispatcher's work to drain, still cancellable. */
export const waitingForWork = (currentPlan: string, requestedPlan: string) => ({
  status: 'waiting_for_work',
  currentPlan,
  requestedPlan,
  cancellable: true,
});
