// Made by npm run openapi from docs/api/openapi.json (openapi-typescript): do not edit.
export interface paths {
  '/v1/auth/sign-in': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Starts the code-host sign-in (redirect)
     * @description Redirects to the code host's authorize page (OAuth 2.0 authorization code with PKCE S256 and a one-time `state` valid 10 minutes), and sets the short-lived `scp_oauth_state` cookie that binds the sign-in to this browser.
     */
    get: operations['AuthSignIn'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/auth/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Completes the code-host sign-in and opens a session
     * @description The code host redirects here. On first sign-in the user is created with a new tenant in `provisioning` (Home Region `eu`), the user its administrator. Sets the session cookie. A client that sends `Accept: application/json` gets the token as JSON; a browser is redirected to the tenant app. Nothing is created when the sign-in is refused.
     */
    get: operations['AuthCallback'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/auth/sign-out': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Revokes the current session
     * @description The token stops working on the very next request. Clears the session cookie.
     */
    post: operations['AuthSignOut'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The signed-in user, tenant, role, slug and billing state; when a new account can be started, and the former accounts
     * @description Who is signed in (the user, the tenant and the role), the tenant's slug and billing state, whether a new account can be started, and the person's former accounts. Any member; reads only.
     */
    get: operations['GetMe'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenant/slug': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Locks the tenant slug (administrators); on an account that has left and is torn down, starts the same person’s new account with it
     * @description A DNS label: 3 to 40 of lowercase letters, digits and `-`, starting with a letter, not ending with `-`, not reserved (see docs/decisions.md). Unique across all tenants forever and permanent once locked: the same slug again is an idempotent 200. On an account that has left (decommissioning, or a close asked for), the same call starts the same person's new account once the old one is torn down: a new tenant in `provisioning` with this slug (the old slug stays with the old account), the person and this session moved to it, the old account kept readable as a former account. Anyone whose account has left may do this, not only its administrator. A retry with the same slug answers the same success.
     */
    post: operations['PostTenantSlug'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/billing/plans': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The customer Plan catalog with placeability in the Home Region
     * @description The same catalog the add-a-Stack picker uses; it can be read before checkout. `placeable` says whether the Plan can be placed now in the caller's Home Region.
     */
    get: operations['GetBillingPlans'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/billing/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The billing state, the running grace deadline and the history of transitions
     * @description The state is decided only by the reconciler sweep. `graceDeadline` is set while `past-due` (7 days, then `suspended`) or `suspended` (14 days, then `decommissioning`). History reasons: `checkout_completed`, `payment_failed`, `past_due_grace_elapsed`, `suspended_grace_elapsed`, `payment_recovered`, `cancelled_in_portal`.
     */
    get: operations['GetBillingStatus'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/billing/summary': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * This period's invoice per Stack and Plan, the next invoice's date and amount, and the card on file
     * @description Read from the payment processor (any member of the tenant). `currentInvoice` is the latest issued invoice (one line per Stack and Plan, prorations, discount, tax); `nextInvoice` is the processor's estimate of the next one (null once the subscription ends or the account is closing); `paymentMethod` is display only: the card is changed in the billing portal. All null before the first checkout.
     */
    get: operations['GetBillingSummary'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/billing/invoices': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The invoices, newest first, paged, with refunds and credits and links to each one's page and PDF
     * @description Every issued invoice of the tenant, newest first (drafts are not listed), read from the payment processor (any member of the tenant). Refunds and credit used are on the invoice they belong to. Each invoice links to its page and PDF through our own route (`viewUrl`, `pdfUrl`: GET /v1/billing/invoices/{invoiceRef}/{document}); no processor id or address is in the body. Page with `next`: pass it as `cursor` for the next page; null on the last.
     */
    get: operations['GetBillingInvoices'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/billing/invoices/{invoiceRef}/{document}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Redirects (303) to one of the tenant's invoices on the processor: its page (`view`) or its PDF (`pdf`)
     * @description The links of an invoice (`viewUrl`, `pdfUrl` of GET /v1/billing/invoices and GET /v1/billing/summary) lead here (any member of the tenant). The processor's address is read now and answered as `Location` of a 303, never in a body. `invoiceRef` is the invoice's `ref`: ours, not the processor's id; only the caller's own invoices are looked at, so another tenant's reference is answered as one we never gave (404).
     */
    get: operations['GetBillingInvoiceDocument'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/billing/checkout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Starts the first subscription on the processor's hosted Checkout (administrators)
     * @description Checks that exactly the chosen Plan can be placed in the Home Region (never a substitute) and reserves a place for the Checkout Session's lifetime (31 minutes). The session allows promotion codes (first checkout only), always collects a card, computes tax automatically and charges the Plan at once. Repeating the request while the session is open returns the same url; naming another Plan replaces the open session.
     */
    post: operations['PostBillingCheckout'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/billing/waitlist': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Joins the waitlist for a Plan (administrators)
     * @description Explicit and idempotent per tenant and Plan. One email is sent once the Plan can be placed in the Home Region.
     */
    post: operations['PostBillingWaitlist'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/billing/portal': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Opens the processor's hosted Billing Portal (administrators)
     * @description The portal only updates the payment method and cancels (at the end of the period).
     */
    post: operations['PostBillingPortal'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenant/close': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Closes an account that never paid (administrators; provisioning only)
     * @description Expires the tenant's open checkout at the processor, releases its capacity reservation and records the close; the reconciler sweep then moves the tenant to `decommissioning` (reason `closed_by_tenant`). Nothing is charged; the slug stays taken forever. A tenant with a subscription leaves through the billing portal.
     */
    post: operations['PostTenantClose'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's Stacks: Plan, resources, caps, location, lifecycle, versions, health
     * @description Every Stack of the tenant, each with its Plan, resources and caps, location, lifecycle, versions and health. Any member; reads only.
     */
    get: operations['GetStacks'];
    put?: never;
    /**
     * Adds a Stack on a Plan, billed on the same subscription (administrators; Idempotency-Key)
     * @description Only while the processor reports the subscription active. Up to the Stack Cap (STACK_CAP, default 5). Placed as at checkout. Billed on the same subscription: one item per price, quantity = Stacks on that price; the proration for the rest of the period lands on the next invoice. No promotion code. The name is `s<n>.<slug>.<stack domain>`.
     */
    post: operations['PostStacks'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/preview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The processor's estimate of adding a Stack, before confirming (administrators)
     * @description The same checks as POST /v1/stacks, and the processor's estimate (invoices.createPreview) of the next invoice with the Stack added now: the proration for the rest of the period as `adjustment`, after the current discount, with its tax estimate (`adjustmentTax`) and its lines. Writes nothing.
     */
    post: operations['PostStacksPreview'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One Stack of the tenant
     * @description One Stack of the tenant, in the same shape as an item of GET /v1/stacks. Any member; a Stack of another tenant is answered as one that does not exist (404 `stack_not_found`).
     */
    get: operations['GetStack'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}/dispatcher-credential': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Issues or rotates the Stack's Dispatcher credential (administrators)
     * @description The secret is answered once; only its hash is stored. The previous credential keeps working for one hour.
     */
    post: operations['PostStackDispatcherCredential'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}/projects': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A Stack's Projects and its Watched-Projects cap
     * @description A Stack's Projects and its Watched-Projects cap. Any member; reads only.
     */
    get: operations['GetStackProjects'];
    put?: never;
    /**
     * Registers a Project on a Stack, under its Watched-Projects cap (administrators)
     * @description Registers a Project (a repository on the code host, `owner/name`) on a running Stack, while the Stack watches fewer Projects than its Plan's Watched-Projects cap. Administrators only. Refused with 409 when the cap is reached (`watchedProjectsCap` says it), when the Project is already there, or when the Stack is not running; nothing is written then.
     */
    post: operations['PostStackProject'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}/projects/{projectId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Removes a Project from a Stack (administrators)
     * @description Removes a Project from a Stack, which frees a place under its Watched-Projects cap. Administrators only. A Project that is not there (or was removed meanwhile) is 404 `project_not_found`.
     */
    delete: operations['DeleteStackProject'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}/plan-changes/preview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A Plan Change's preview: both Plans, capacity, the processor's estimate, every refusal (administrators)
     * @description Both Plans side by side (capacity: placeable_in_location, placeable_elsewhere_in_home_region or would_queue; quotas; monthly prices), the processor's estimate of the next invoice (invoices.createPreview with create_prorations at this moment) with its discount and tax, and the change's own adjustment after the current discount with its tax estimate and its lines in our words, the preserved billing-cycle date, every refusal a confirmation would meet, and warnings. Writes nothing. With any release gate down: 409 plan_changes_unavailable.
     */
    post: operations['PostPlanChangePreview'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}/plan-changes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Confirms a Plan Change: it starts, or queues for capacity; refusals say why (administrators; Idempotency-Key)
     * @description Moves the Stack to another Plan. The change is recorded and its workflow started. It starts in `waiting_for_work` (a place for the new Plan held in the Stack's own location in the same transaction; admission of new work is paused) when the Stack's location has room, and otherwise in `waiting_for_capacity` (it looks for a place anywhere in the Home Region every 15 minutes, and expires 7 days after confirmation). A change of the same Stack still waiting for capacity is superseded by the new one. The processor's estimate at this moment is kept on the record (`estimate`, null when the processor could not estimate); billing is committed only once the replacement is healthy. With any release gate down: 409 plan_changes_unavailable.
     */
    post: operations['PostPlanChange'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/plan-changes/{changeId}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancels a Plan Change while it waits for capacity or for work (administrators)
     * @description Allowed while the change is `waiting_for_capacity` or `waiting_for_work` (`cancellable: true`); the final backup (`preparing`) closes the cancel window. The change ends `cancelled`: admission reopens on the previous Plan, a held place is given back, billing is untouched, and its workflow stops. No request body (or `{}`).
     */
    post: operations['PostPlanChangeCancel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/plan-changes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's Plan Changes, newest first; one Stack's with ?stackId=
     * @description Every Plan Change of the tenant, ended ones included, newest confirmation first (any member of the tenant).
     */
    get: operations['GetPlanChanges'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/plan-changes/{changeId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One Plan Change's durable record: Plans, status history, estimate and final adjustment
     * @description Both Plans, the status and its history, what the tenant can do next (`recovery`), the estimate shown at confirmation and, once billing committed, the exact adjustment beside it with why they differ (any member of the tenant).
     */
    get: operations['GetPlanChange'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/plan-changes/export': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The Plan Change audit export as JSON Lines (administrators)
     * @description Every Plan Change of the tenant, oldest first, one JSON object a line: the same record as GET /v1/plan-changes/{changeId} (no processor id, no operator, no storage locator) plus `exportedAt`, the moment of the export (the same on every line). A tenant with no change gets an empty body. Sent as an attachment (`plan-changes.jsonl`).
     */
    get: operations['GetPlanChangesExport'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/credentials/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Provisions or rotates a Credential of a Stack (administrators; ?stackId=, the first Stack by default)
     * @description A new name creates the Credential (201); an existing one rotates it (200): new material, possibly another kind, never another Provider; an archived one comes back. The material is envelope-encrypted with a KMS data key and never returned. The Credential's validation is `pending` until the Stack's Dispatcher checks it; the desired state's version goes up. Accepted kinds: provider-a `oauth_token`, `api_key`, `ambient`; provider-b `auth_file`, `api_key`, `ambient`; provider-c `api_key`. `oauth_token`, `auth_file` and `ambient` spend the tenant's own subscription and need `consent` (who and when come from the session and the Clock); `api_key` needs none. `ambient` stores no material and is accepted only on a Stack whose Dispatcher reports it is a Local Stack using the host Executor. Refusals write nothing.
     */
    post: operations['PostCredential'];
    /**
     * Deletes a Credential: blocked while a route names it, confirmed first when Threads are bound to it (administrators; ?stackId=)
     * @description Blocked (409 `credential_in_use`, with every use) while any Project's intake or dispatch route names the Credential. Otherwise a first request always answers 409 `confirmation_required` with the number of historical Threads bound to it (they become non-resumable; 0 when none is) and a token; repeating it with `confirmationToken` within 15 minutes deletes it. A token that is not the pending one answers 400 `invalid_confirmation` and keeps the pending one; the pending token after it expired, or after more Threads were bound, answers `confirmation_required` again with a new token. A Guide selection naming it is cleared (reason `deleted`).
     */
    delete: operations['DeleteCredential'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/credentials/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: paths['/v1/credentials/{name}']['post'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/credentials': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A Stack's Credentials (never their material) and its Guide selection (?stackId=)
     * @description Every Credential of the Stack (archived ones included), never their material, and the Guide selection (any member of the tenant).
     */
    get: operations['GetCredentials'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/credentials': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: paths['/v1/credentials']['get'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/credentials/catalog': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The Provider catalog: each Provider, its defaults and accepted kinds (consent, Local-only), and the consent text
     * @description What the API accepts when provisioning a Credential (any member of the tenant): each Provider with its name, the model and effort a blank Runtime Profile falls back to, and its accepted kinds in order, each saying whether it needs the administrator's consent, is accepted only on a Local Stack using the host Executor (`ambient`), and is metered by the provider (`api_key`); the consent text, with the version a provisioning's `consent.textVersion` must name; the Runtime Profile's activities and efforts. The same for every tenant; reads nothing stored.
     */
    get: operations['GetCredentialCatalog'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/credentials/{name}/archive': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Archives a Credential: kept, no longer usable (administrators; ?stackId=)
     * @description The Credential stays in the list, unusable (`unusableReason`: `archived`), and can no longer be a route's Primary or Fallback nor the Guide Credential. A Guide selection naming it is cleared (reason `archived`). Archiving an archived Credential changes nothing. A new provisioning of the name brings it back.
     */
    post: operations['PostCredentialArchive'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}/projects/{projectId}/credential-routes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Sets a Project's intake and dispatch Credential Routes: Primary and optional Fallback (administrators)
     * @description Replaces the Project's routes as a whole: for `intake` and for `dispatch`, a Primary and an optional Fallback, each a Credential of the same Stack that is not archived. An activity left out has no route (a new Thread for it is refused).
     */
    put: operations['PutProjectCredentialRoutes'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}/guide-credential': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Selects (or clears) the Stack's Guide Credential (administrators)
     * @description Every Guide Session of the Stack uses this one Credential, never another. `{ "name": null }` clears the selection (reason `cleared_by_administrator`). A Credential whose validation is pending can be selected (Guide Sessions wait for it); an archived one, or one whose validation failed, cannot.
     */
    put: operations['PutGuideCredential'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}/exports': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A Stack's exports, newest first (at most 20), each as its status read shows it
     * @description The 20 newest exports of the Stack at most, newest first, each exactly as `GET /v1/stacks/{stackId}/exports/{exportId}` shows it (never where it is stored); an empty list when the Stack has none.
     */
    get: operations['GetStackExports'];
    put?: never;
    /**
     * Starts an export archive of the Stack: its journal and its Threads' unshipped work (administrators; until teardown)
     * @description The Stack's Dispatcher builds an uncompressed tar (`manifest.json`, `journal.db`, `bundles/<threadId>.bundle`; see docs/exports.md) and uploads it to the control plane's private storage. Allowed while the Stack runs or is decommissioning, until its teardown; one export at a time per Stack. No body (or `{}`).
     */
    post: operations['PostStackExport'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}/exports/{exportId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * An export's status: requested, building, ready (size, until when) or failed (why)
     * @description An export's status: `requested`, `building`, `ready` (its size, and until when it can be downloaded) or `failed` (why). Any member; poll it after POST /v1/stacks/{stackId}/exports.
     */
    get: operations['GetStackExport'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stacks/{stackId}/exports/{exportId}/download': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A short-lived signed download URL of a ready archive, on the console's own site (administrators)
     * @description The URL is on the console's own site (`https://<console domain>/exports/<opaque key>?Expires=…&Signature=…&Key-Pair-Id=…`, CloudFront with a trusted key; locally the control plane's `/_local/exports/…`), valid 5 minutes; ask again for a fresh one. It names no bucket and no storage path: only the archive's random 256-bit key. Works while decommissioning, until teardown. No body (or `{}`).
     */
    post: operations['PostStackExportDownload'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dispatcher/desired-state': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The calling Dispatcher's Stack as it must be (ETag; 304 when unchanged)
     * @description For a Stack's Dispatcher (its Dispatcher credential): what its Stack must be now (version, Plan, Credentials, any Plan Change step to carry out). The ETag is the desired state's version: send it back in If-None-Match and an unchanged state is 304 with no body. `X-Poll-After-Seconds` says when to ask again.
     */
    get: operations['GetDispatcherDesiredState'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dispatcher/observed-state': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * What the calling Dispatcher applied: version, health, active runs
     * @description For a Stack's Dispatcher: what it applied and sees (the version it applied, health, active runs, the outcome of its last Plan Change step, a finished teardown). A version the Stack never published, or a Stack that changed meanwhile, is 409 `unknown_version` and nothing is stored: read the desired state again and report the version applied.
     */
    put: operations['PutDispatcherObservedState'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dispatcher/credentials/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A Credential's material, to its own Stack's Dispatcher only, to validate it with the provider
     * @description Only the calling Dispatcher's own Stack's Credentials: a name of another Stack is simply not found. Check the material with the provider and report the verdict with `version`.
     */
    get: operations['GetDispatcherCredential'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dispatcher/credentials/{name}/validation': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The Dispatcher's verdict on a Credential's material: valid, or invalid with the reason
     * @description Counts only for the version checked. `invalid` makes the Credential unusable and clears a Guide selection naming it (reason `validation_failed`). The tenant is told our reason code (`provider_refused`) and its text, never `reason`: that is kept for operators.
     */
    post: operations['PostDispatcherCredentialValidation'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dispatcher/threads': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A new Thread: the routed Credential, model and effort, bound for good, and what to inject
     * @description Takes the Project's Credential Route for the activity: the Primary while usable, else the Fallback (with its own Runtime Profile). Model and effort resolve (this request's values, else the Credential's profile for the activity, else the Provider's default) and are bound to the Thread for good. The same `threadId` again answers the same binding with the bound Credential's current material, while that Credential is neither deleted, archived nor disabled by the subscription policy.
     */
    post: operations['PostDispatcherThread'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dispatcher/guide-sessions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * A Guide Session: the Stack's Guide Credential only, or a precise error
     * @description Uses the Stack's Guide selection and never another Credential; model and effort resolve from this request, else the Credential's `guide` profile, else the Provider's default, and are bound to the Thread for good. With no usable selection: 409 `guide_unavailable` with the reason; a selected Credential that is gone, archived, failed its validation or is disabled by the subscription policy is cleared then, keeping why. The same `threadId` again answers the same binding.
     */
    post: operations['PostDispatcherGuideSession'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dispatcher/exports/{exportId}/parts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Presigned URLs to upload the parts of the Stack's export archive
     * @description For the export the desired state names (`export.id`). The archive goes up as a multipart upload: PUT each part (every part but the last at least 5 MiB; at most 10,000 parts) to its URL, as it is, and keep the `ETag` each PUT answers. URLs work 15 minutes; ask again for fresh ones at any time. The first request makes the upload.
     */
    post: operations['PostDispatcherExportParts'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dispatcher/exports/{exportId}/outcome': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The export archive is uploaded (its size and parts: the upload is completed) or failed
     * @description `ready`: the archive's size and every part's number and ETag, in order (the control plane completes the upload; S3 checks each ETag, and the stored size must equal `sizeBytes`). `failed`: why, for the tenant to read. Bodies up to 1 MiB. A repeated report of an ended export answers its status and changes nothing.
     */
    post: operations['PostDispatcherExportOutcome'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dispatcher/blocking-verdict': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * The blocking verdict for an issue from its three sources
     * @description For a Stack's Dispatcher: the one blocking rule, applied to an issue from its three sources (the code host's native dependencies, the relationship edges, and the `## Blocked by` section of the issue's body, with the known states of the issues they name). Answers whether the issue is blocked and which blockers are open. Reads and writes nothing.
     */
    post: operations['PostDispatcherBlockingVerdict'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/ops/refunds': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Grants a tenant's money-back refund after its email to support (operators, IAM-signed; locally use npm run ops -- refund)
     * @description An operator action, not a tenant one: API Gateway's IAM authorizer lets only requests signed (SigV4) by an IAM principal allowed `execute-api:Invoke` on this route through; no session reaches it, and the local control plane (which has no IAM) answers 403 and points at `npm run ops -- refund`. The address must be the processor customer's or an administrator's (case-insensitive); the window is judged at `requestedAt` (when support received the email; default now, never later than now), inclusive up to 14 × 24 hours after the payment of the first invoice above zero; once per tenant, ever; not while decommissioning. Every payment made in the window is refunded (one refund per payment, keyed per payment), the subscription is cancelled at once (no proration) and its open invoices voided; the grant is recorded on the tenant with the confirmation email. The sweep then moves the tenant to `decommissioning` (reason `refund_granted`). A request that stopped part-way (processor failure) is continued by the same request, refunding nothing twice.
     */
    post: operations['PostOpsRefund'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/processor': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Verifies processor webhooks and queues them for the reconciler
     * @description Called by the payment processor. The `Stripe-Signature` header is verified on the raw body (5-minute tolerance); a verified event of any type is queued and answered 200. It never changes tenant state.
     */
    post: operations['ProcessorWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    Error: {
      error: {
        code: string;
        /** @description What to fix. */
        message: string;
        /** @description The offending field, dotted path. */
        field?: string;
        /** @description For developers: the API call(s) that fix it (`DELETE /v1/stacks/{stackId}/projects/{projectId}`), kept out of `message`, which is written for a person in the console. */
        apiHint?: string;
        requestId: string;
      };
      /** @description Seconds to wait before sending the request again (also `Retry-After`). */
      retryAfterSeconds?: number;
      /** @description `account_closing`, `cancellation_scheduled`: when the Stacks are torn down (null until known). */
      teardownAt?: string | null;
      /** @description Why, in one of our words (e.g. `no_capacity`). */
      reason?: string;
      /** @description `no_capacity`: the Plans that have a free place now. */
      availablePlans?: string[];
      /** @description `stack_cap_reached`: the most Stacks a tenant may run. */
      stackCap?: number;
      /** @description The most watched projects this Stack may have. */
      watchedProjectsCap?: number;
      /** @description `plan_changes_unavailable`: the release gates that are down. */
      gatesNotReady?: string[];
      /** @description The export already running (the one to wait for). */
      exportId?: string | null;
      /** @description `slug_locked`: the slug this tenant already locked. */
      slug?: string;
      /** @description `new_account_not_yet`: from when a new account may be started (null while a close is carried out). */
      newAccountFrom?: string | null;
    };
    Project: {
      projectId?: string;
      name?: string;
      repository?: string;
      /** Format: date-time */
      registeredAt?: string;
      credentialRoutes?: components['schemas']['CredentialRoutes'];
    };
    Money: {
      /** @description Minor units (cents). */
      amount: number;
      /** @enum {string} */
      currency: 'USD';
    };
    Plan: {
      /** @enum {string} */
      value: 'standard' | 'plus' | 'pro';
      name: string;
      monthlyPrice: components['schemas']['Money'];
      resources: {
        vcpu: number;
        /** @enum {string} */
        vcpuKind: 'shared';
        memoryGb: number;
        storageGb: number;
      };
      runCap: number;
      reserveCap: number;
      watchedProjectsCap: number;
      placeable: boolean;
    };
    PlanCatalog: {
      homeRegion: string;
      plans: components['schemas']['Plan'][];
    };
    Me: {
      user: {
        id: string;
        login: string;
        email: string | null;
      };
      tenantId: string;
      /** @enum {string} */
      role: 'administrator' | 'member';
      slug: string | null;
      stackName: string | null;
      homeRegion: string;
      /** @enum {string} */
      billingState: 'provisioning' | 'active' | 'past-due' | 'suspended' | 'decommissioning';
      /** @description Whether the Plan Change controls may show: visible only when all five release gates are ready. */
      planChangeControls: {
        visible: boolean;
        gates: {
          [key: string]: boolean;
        };
      };
      /** @description A close the tenant asked for that the sweep has not carried out yet (null: none). */
      closeRequestedAt: string | null;
      /** @description The Plans the tenant joined the waitlist for, waiting or already told of a place. */
      waitlist: {
        /** @enum {string} */
        plan: 'standard' | 'plus' | 'pro';
        homeRegion: string;
        /** Format: date-time */
        joinedAt: string;
        notified: boolean;
      }[];
      /** @description Null while the account has not left. Otherwise whether a new account can be started with the same sign-in (POST /v1/tenant/slug with a new slug) and from when: the teardown time while the account still serves or can be exported, null for a close still being carried out. */
      newAccount: {
        possible: boolean;
        possibleFrom: string | null;
        /** @description The same in words, as the console shows it. */
        text: string;
      } | null;
      /** @description The person's earlier accounts, oldest first; their billing stays readable with `account=<slug>` on the billing read routes. */
      formerAccounts: {
        slug: string | null;
        /** @description The reason it left (a history reason). */
        leftBy: string | null;
        /** @description When it was torn down. */
        closedAt: string | null;
      }[];
    };
    NoCapacity: components['schemas']['Error'] & {
      /** @enum {string} */
      reason?: 'no_capacity';
      availablePlans?: ('standard' | 'plus' | 'pro')[];
    };
    WaitlistEntry: {
      plan: string;
      homeRegion: string;
      /** Format: date-time */
      joinedAt: string;
      notified: boolean;
      placeableNow: boolean;
    };
    /** @description An export archive of a Stack (docs/exports.md). Never shows where it is stored. */
    Export: {
      exportId: string;
      stackId: string;
      /**
       * @description `requested`: waiting for the Stack's Dispatcher; `building`: it is uploading the archive; `ready`: download it; `failed`: see `failureCode` (also an export not ready within 24 hours, or whose Stack was torn down)
       * @enum {string}
       */
      status: 'requested' | 'building' | 'ready' | 'failed';
      /** Format: date-time */
      requestedAt: string;
      readyAt: string | null;
      sizeBytes: number | null;
      /** @description Why it failed, a code of ours (docs/exports.md); null unless `failed`. Never the Dispatcher's own words (kept for operators) */
      failureCode:
        | ('build_failed' | 'upload_incomplete' | 'size_mismatch' | 'build_timed_out' | 'stack_torn_down')
        | null;
      /** @description The text of `failureCode`: what failed and what to do next */
      failureReason: string | null;
      /** @description Ready archives are kept 7 days */
      availableUntil: string | null;
    };
    /** @description A Stack's exports, newest first */
    ExportList: {
      /** @description The 20 newest at most */
      exports: components['schemas']['Export'][];
    };
    /** @description The Founding Price Lock of a Stack: a founding tenant's first Stack (first subscription completed before Open Signup) keeps the monthly list price it was bought at while the subscription has no break and the Stack stays on that Plan. Confirming a Plan Change of the Stack ends it for good (even if the change then expires, is cancelled or rolls back); the subscription ending ends it too. Tax, metered usage and later changes to a Plan's capacity and quotas are outside it. */
    PriceLock: {
      /** @enum {string} */
      state: 'locked' | 'ended';
      /**
       * @description The Plan whose price is locked
       * @enum {string}
       */
      plan: 'standard' | 'plus' | 'pro';
      /** @description The monthly list price the lock keeps */
      monthlyPrice: components['schemas']['Money'];
      /** Format: date-time */
      lockedAt: string;
      endedAt: string | null;
      /** @description Why it ended (null while locked) */
      reason: ('plan_change_confirmed' | 'subscription_cancelled') | null;
    };
    /** @description A Stack as the tenant sees it: never a provider id, a storage locator or a credential. */
    Stack: {
      stackId: string;
      /** @description <slug>.<stack domain> for the first Stack */
      name: string;
      /** Format: uri */
      address: string;
      /** @enum {string} */
      plan: 'standard' | 'plus' | 'pro';
      resources: {
        [key: string]: unknown;
      };
      caps: {
        runCap?: number;
        reserveCap?: number;
        watchedProjectsCap?: number;
      };
      location: string;
      /** @enum {string} */
      lifecycle: 'creating' | 'running' | 'decommissioning' | 'torn_down';
      teardownAt?: string | null;
      desiredStateVersion: number;
      appliedVersion: number | null;
      /** @enum {string} */
      health: 'healthy' | 'unhealthy' | 'unknown';
      activeRuns?: number;
      lastReportAt?: string | null;
      /** @description The Dispatcher has reported before but missed two heartbeats (docs/dispatcher.md) */
      reportStale?: boolean;
      projects?: number;
      /** Format: date-time */
      createdAt?: string;
      /** @description The Founding Price Lock (null: the Stack never had one) */
      priceLock?: components['schemas']['PriceLock'] | null;
      /** @description The Stack's Dispatcher reports a host Executor (a Local Stack): only then is the `ambient` Credential kind accepted. */
      localHostExecutor?: boolean;
    };
    /**
     * @description `waiting_for_capacity` and `waiting_for_work` can be cancelled; `preparing`, `switching`, `verifying` run to completion or roll back; `completed`, `rolled_back`, `expired`, `superseded` and `cancelled` are final. Only an administrator's cancel ends a change `cancelled`; a change that can no longer go on for a reason of ours (billing overdue, the tenant leaving, the Stack torn down) is `rolled_back` (docs/plan-changes.md)
     * @enum {string}
     */
    PlanChangeStatus:
      | 'waiting_for_capacity'
      | 'waiting_for_work'
      | 'preparing'
      | 'switching'
      | 'verifying'
      | 'completed'
      | 'rolled_back'
      | 'expired'
      | 'superseded'
      | 'cancelled';
    /** @description One proration line of a change, in our words (never the processor's): a credit for the unused time of what the Stacks were billed at, or a charge for the rest of the billing period on what they are billed at now. The processor credits an item's whole old quantity and charges its whole new one. */
    EstimateLine: {
      /** @example Credit for the unused time of 1 Plus Stack, from 2026-11-06 to 2026-12-01 */
      description: string;
      /** @description Before the discount; negative for a credit */
      amount: number;
      /** @description What the current discount takes off it (negative on a credit: what was paid was discounted) */
      discount: number;
      /** @description The tax estimate on `amount - discount` */
      tax: number;
    };
    /** @description A Plan Change as the tenant sees it (planChangeView): never a processor id, an operator or a storage locator. Amounts are integers in minor units (cents). */
    PlanChange: {
      changeId: string;
      stackId: string;
      /**
       * @description The Plan the Stack was on at confirmation
       * @enum {string}
       */
      currentPlan: 'standard' | 'plus' | 'pro';
      /** @enum {string} */
      requestedPlan: 'standard' | 'plus' | 'pro';
      status: components['schemas']['PlanChangeStatus'];
      /** @description True while `waiting_for_capacity` or `waiting_for_work`: POST /v1/plan-changes/{changeId}/cancel is allowed */
      cancellable: boolean;
      /** Format: date-time */
      confirmedAt: string;
      /** Format: date-time */
      updatedAt: string;
      /**
       * Format: date-time
       * @description Confirmation + 7 days: a change still waiting for capacity then ends `expired`
       */
      expiresAt: string;
      /** @description Every status the change has had, oldest first (the first is the starting status) */
      history: {
        status: components['schemas']['PlanChangeStatus'];
        /** Format: date-time */
        at: string;
      }[];
      /** @description What the tenant can do next, for the current status */
      recovery: string;
      /** @description Why the change ended (or, once a roll back is decided, why it rolls back): a code of ours (docs/plan-changes.md lists each with its text); null while it runs. Never a Dispatcher's or an operator's words */
      reasonCode:
        | (
            | 'completed'
            | 'completed_not_billed'
            | 'drain_timed_out'
            | 'backup_failed'
            | 'backup_timed_out'
            | 'switch_failed'
            | 'switch_timed_out'
            | 'verify_failed'
            | 'verify_timed_out'
            | 'move_failed'
            | 'no_capacity_expired'
            | 'cancelled_by_administrator'
            | 'cancelled'
            | 'billing_not_active'
            | 'billing_overdue'
            | 'account_closing'
            | 'stack_teardown'
            | 'superseded'
          )
        | null;
      /** @description The text of `reasonCode`: what happened, what it means for the Plan and billing, what the tenant can do next; null with it */
      outcome: string | null;
      location: {
        /** @description Where the Stack ran at confirmation */
        from: string;
        /** @description Where the replacement goes, once a place is held */
        to: string | null;
        /** @description After the switch: the replacement's public IP address differs from the old one (null until known) */
        addressChanged: boolean | null;
      };
      /** @description The processor's estimate of the next invoice shown at confirmation (null: it could not estimate), as the preview showed it: the invoice as a whole, and the change's own `adjustment` after the current discount with its tax estimate and lines. */
      estimate: {
        /** @description The processor's lowercase ISO currency code (e.g. `usd`) */
        currency: string;
        /** @description The whole next invoice, before its discount and tax */
        subtotal: number;
        /** @description The whole next invoice's discount */
        discount: number;
        /** @description The whole next invoice's tax */
        tax: number;
        total: number;
        /** @description What the card would be charged: the total less any customer credit */
        amountDue: number;
        /** @description When the next invoice is made (the billing-cycle date is kept) */
        invoiceAt: string | null;
        /** @description The change's own proration lines after the current discount, before tax (negative: a credit). The final adjustment is read on the same basis. Prorations already pending on that invoice (an added Stack's, an earlier change's) are in the total, never here. On changes confirmed before the tax was kept, it was before the discount too */
        adjustment: number;
        /** @description The tax estimate on the change's lines (null on changes confirmed before it was kept) */
        adjustmentTax: number | null;
        /** @description `adjustment + adjustmentTax` (null on changes confirmed before it was kept) */
        adjustmentTotal: number | null;
        /** @description The change's own proration lines; `adjustment` is the sum of `amount - discount`, `adjustmentTax` the sum of `tax` (empty on changes confirmed before they were kept) */
        lines: components['schemas']['EstimateLine'][];
      } | null;
      /** @description Once billing committed (the replacement healthy): the exact adjustment the processor created, its tax and their sum, beside the estimate's, and why they differ; null before */
      final: {
        /** @description The exact adjustment the billing commit created: its pending proration items, each after the discount it was made with, before tax (the estimate's `adjustment` basis) */
        adjustment: number;
        /** @description The tax the processor puts on those items on the next invoice (each line taxed after its discount, rounded to the cent); 0 when not billed; null on changes committed before it was kept, or when no next invoice comes */
        adjustmentTax: number | null;
        /** @description `adjustment` + `adjustmentTax`: what the next invoice's total changes by (negative: lowered); null with `adjustmentTax` */
        adjustmentTotal: number | null;
        /** @description The estimate's `adjustmentTax` (null: no estimate, or one confirmed before it was kept) */
        estimatedAdjustmentTax: number | null;
        /** @description The estimate's `adjustmentTotal` (null as `estimatedAdjustmentTax`) */
        estimatedAdjustmentTotal: number | null;
        /** @description `adjustmentTotal` minus `estimatedAdjustmentTotal` (null when either is) */
        totalDifference: number | null;
        /** @description The processor's lowercase ISO currency code (e.g. `usd`) */
        currency: string;
        /** Format: date-time */
        committedAt: string;
        /** @description The estimate's `adjustment` (null: no estimate) */
        estimatedAdjustment: number | null;
        /** @description `adjustment` minus `estimatedAdjustment` (null: no estimate) */
        difference: number | null;
        explanation: string;
      } | null;
    };
    /** @description One line of the Plan Change export: the record and the moment of the export */
    PlanChangeExportLine: components['schemas']['PlanChange'] & {
      /** Format: date-time */
      exportedAt: string;
    };
    /** @description A refused Plan Change request: the error, and the top-level fields some codes add */
    PlanChangeRefusal: components['schemas']['Error'] & {
      /** @description With `plan_changes_unavailable`: the release gates not ready */
      gatesNotReady?: (
        | 'plan-catalog'
        | 'processor-integration'
        | 'replacement-path'
        | 'reconciliation-loop'
        | 'customer-contract'
      )[];
      /** @description With `plan_change_ended` and `plan_change_not_cancellable`: the change's status */
      status?: components['schemas']['PlanChangeStatus'];
    };
    RuntimeProfileEntry: {
      model?: string;
      /** @enum {string} */
      effort?: 'low' | 'medium' | 'high';
    };
    /** @description The model and effort per activity (`intake`: Intake Sessions and Wayfinder work; `dispatch`: ordinary Runs; `guide`: Guide Sessions). For a Thread, a value given for that one Run or session wins, then the Credential's entry for the activity, then the Provider's default; model and effort resolve each on its own. */
    RuntimeProfile: {
      intake?: components['schemas']['RuntimeProfileEntry'];
      dispatch?: components['schemas']['RuntimeProfileEntry'];
      guide?: components['schemas']['RuntimeProfileEntry'];
    };
    /** @description A Credential as a tenant sees it: never its secret material. */
    Credential: {
      name: string;
      /**
       * @description Kept for good: a rotation never changes it
       * @enum {string}
       */
      provider: 'provider-a' | 'provider-b' | 'provider-c';
      /** @enum {string} */
      kind: 'oauth_token' | 'auth_file' | 'api_key' | 'ambient';
      /**
       * @description `metered`: an `api_key`, whose usage the provider charges on top of the flat hosted fee; `personal_subscription`: `oauth_token`, `auth_file` and `ambient` spend the tenant's own subscription with the provider
       * @enum {string}
       */
      usage: 'metered' | 'personal_subscription';
      runtimeProfile: components['schemas']['RuntimeProfile'];
      /** @description The Stack's Dispatcher checks the material with the provider after each provisioning (`pending` until it reports) */
      validation: {
        /** @enum {string} */
        state: 'pending' | 'valid' | 'invalid';
        /** @description With `invalid`: why, a code of ours (docs/credentials.md). Never the Dispatcher's own words (kept for operators) */
        reasonCode: 'provider_refused' | null;
        /** @description The text of `reasonCode`: what failed and what to do next */
        reason: string | null;
        checkedAt: string | null;
      };
      /** @description Whether a new Thread or Guide Session can use it now */
      usable: boolean;
      /** @description `subscription_policy`: the tenant is suspended or leaving */
      unusableReason:
        | ('archived' | 'validation_failed' | 'validation_pending' | 'subscription_policy')
        | null;
      /** @description The administrator's consent, for the kinds that spend a personal subscription; null for `api_key` */
      consent: {
        /** @description The administrator's login */
        by: string;
        /** Format: date-time */
        at: string;
        /** @description The version of the consent text shown */
        textVersion: string;
      } | null;
      /** Format: date-time */
      createdAt: string;
      /** @description The last rotation (a provisioning of an existing name) */
      rotatedAt: string | null;
      /** @description Archived: kept but unusable (a new provisioning of the name brings it back) */
      archivedAt: string | null;
    };
    /** @description The Stack's Guide Credential: the one Credential every Guide Session uses */
    GuideSelection: {
      /** @description The selected Credential; null when none is */
      name: string | null;
      selectedAt: string | null;
      usable: boolean;
      unusableReason:
        | ('archived' | 'validation_failed' | 'validation_pending' | 'subscription_policy')
        | null;
      /** @description The last time a selection was cleared: which Credential, why and when. `subscription_policy` is set by the sweep that moves the tenant to `suspended` or `decommissioning` */
      cleared: {
        name: string;
        /** @enum {string} */
        reason:
          | 'archived'
          | 'deleted'
          | 'validation_failed'
          | 'subscription_policy'
          | 'cleared_by_administrator';
        /** Format: date-time */
        at: string;
      } | null;
    };
    CredentialList: {
      stackId: string;
      /** @description By name */
      credentials: components['schemas']['Credential'][];
      guide: components['schemas']['GuideSelection'];
    };
    /** @description The Provider catalog (docs/credentials.md) */
    CredentialCatalog: {
      /** @description The consent text to show before provisioning a kind that needs consent */
      consent: {
        /** @description What a provisioning's `consent.textVersion` must be, such as 2026-11 */
        textVersion: string;
        text: string;
      };
      providers: {
        /** @enum {string} */
        provider: 'provider-a' | 'provider-b' | 'provider-c';
        /** @description For people, such as Provider A */
        name: string;
        /** @description What a blank Runtime Profile entry falls back to */
        defaults: {
          model: string;
          /** @enum {string} */
          effort: 'low' | 'medium' | 'high';
        };
        /** @description The kinds the Provider accepts, in order */
        kinds: {
          /** @enum {string} */
          kind: 'oauth_token' | 'auth_file' | 'api_key' | 'ambient';
          /** @description Spends the tenant's own subscription: a provisioning needs `consent` */
          needsConsent: boolean;
          /** @description Accepted only on a Local Stack whose Dispatcher reports the host Executor (`ambient`) */
          localOnly: boolean;
          /** @description The provider charges its usage on top of the flat hosted fee (`api_key`) */
          metered: boolean;
        }[];
      }[];
      /** @description The activities of a Runtime Profile */
      activities: ('intake' | 'dispatch' | 'guide')[];
      /** @description The efforts a Runtime Profile accepts */
      efforts: ('low' | 'medium' | 'high')[];
    };
    CredentialRoute: {
      primary: string;
      /** @description Used when the Primary is not usable; must differ from it */
      fallback?: string;
    };
    /** @description Per activity, the Credential a new Thread gets; an activity left out has no route */
    CredentialRoutes: {
      intake?: components['schemas']['CredentialRoute'];
      dispatch?: components['schemas']['CredentialRoute'];
    };
    CredentialRouteUse: {
      projectId: string;
      /** @enum {string} */
      activity: 'intake' | 'dispatch';
      /** @enum {string} */
      position: 'primary' | 'fallback';
    };
    /** @description A refused Credential request: the error, and the top-level fields some codes add */
    CredentialRefusal: components['schemas']['Error'] & {
      /** @description With `kind_not_accepted`: the kinds the Provider accepts */
      accepted?: ('oauth_token' | 'auth_file' | 'api_key' | 'ambient')[];
      /** @description With `credential_in_use`: every Project, activity and position whose route names the Credential */
      uses?: components['schemas']['CredentialRouteUse'][];
      /** @description With `confirmation_required`: the historical Threads bound to the Credential, which will not be resumable (0 when none is: the confirmation is asked for all the same) */
      threadCount?: number;
      /** @description With `confirmation_required`: repeat the DELETE with `?confirmationToken=` to delete */
      confirmationToken?: string;
      /**
       * Format: date-time
       * @description With `confirmation_required`: the token is valid until then (15 minutes)
       */
      expiresAt?: string;
      /** @description With `credential_unusable`: `archived` or `validation_failed` */
      reason?: string;
      /** @description With `consent_version_unknown`: the current consent text's version (GET /v1/credentials/catalog) */
      currentTextVersion?: string;
    };
    /** @description What the runtime gets: environment variables (`oauth_token`, `api_key` of provider-a and provider-c), an auth file's JSON text (`auth_file`, and provider-b's `api_key` as the `api_key` field of an auth file), or the host's own login (`ambient`). Secret: keep it only as long as the runtime needs it, never log it. */
    Injection: {
      /** @description Such as `PROVIDER_A_OAUTH_TOKEN`, `PROVIDER_A_API_KEY`, `PROVIDER_C_API_KEY` */
      env?: {
        [key: string]: string;
      };
      /** @description The auth file, as JSON text */
      authFile?: string;
      /**
       * @description Use the host's own runtime login
       * @constant
       */
      ambient?: true;
    };
    /** @description A Thread bound for good: its Credential, model and effort, and what to inject (the bound Credential's current material) */
    ThreadBinding: {
      threadId: string;
      /** @enum {string} */
      activity: 'intake' | 'dispatch' | 'guide';
      /** @description Absent for a Guide Session */
      projectId?: string;
      credential: {
        name: string;
        /** @enum {string} */
        provider: 'provider-a' | 'provider-b' | 'provider-c';
        /** @enum {string} */
        kind: 'oauth_token' | 'auth_file' | 'api_key' | 'ambient';
        /**
         * @description Which part of the route gave it (`guide`: the Guide selection)
         * @enum {string}
         */
        position: 'primary' | 'fallback' | 'guide';
      };
      model: string;
      /** @enum {string} */
      effort: 'low' | 'medium' | 'high';
      inject: components['schemas']['Injection'];
    };
    /** @description A refused Dispatcher Credential request: the error, and the top-level fields some codes add */
    DispatcherCredentialRefusal: components['schemas']['Error'] & {
      /** @description With `stale_version`: the Credential's current material version */
      currentVersion?: number;
      /**
       * @description With `no_credential_route` and `no_usable_credential`
       * @enum {string}
       */
      activity?: 'intake' | 'dispatch';
      /** @description With `no_usable_credential`: why each Credential of the route cannot be used */
      reasons?: {
        /** @enum {string} */
        position: 'primary' | 'fallback';
        name: string;
        /** @enum {string} */
        reason: 'archived' | 'validation_failed' | 'validation_pending' | 'subscription_policy' | 'missing';
      }[];
      /** @description With `guide_unavailable`: `none_selected`, `validation_pending` (the selection stays), or why the selection was cleared now (`archived`, `validation_failed`, `subscription_policy`, `deleted`); with `thread_not_resumable`: `credential_deleted`, `archived` or `subscription_policy` */
      reason?: string;
      /** @description With `guide_unavailable` (except `none_selected`) and `thread_not_resumable`: the Credential concerned */
      credential?: string;
      /** @description With `guide_unavailable`: the selection cleared (now, or earlier with `none_selected`) */
      cleared?: {
        name?: string;
        /** @enum {string} */
        reason?:
          | 'archived'
          | 'deleted'
          | 'validation_failed'
          | 'subscription_policy'
          | 'cleared_by_administrator';
        /** Format: date-time */
        at?: string;
      };
    };
    /** @description The processor's estimate (invoices.createPreview at this moment) of the next invoice with a change applied: the invoice as a whole, and the change's own share of it after the current discount with its tax estimate and its lines. Integers in minor units (cents). */
    InvoiceEstimate: {
      /** @description The processor's lowercase ISO currency code (e.g. `usd`) */
      currency: string;
      /** @description The whole next invoice, before its discount and tax */
      subtotal: number;
      /** @description The whole next invoice's discount */
      discount: number;
      /** @description The whole next invoice's tax */
      tax: number;
      total: number;
      /** @description What the card would be charged: the total less any customer credit */
      amountDue: number;
      /** @description When the next invoice is made (the billing-cycle date is kept) */
      invoiceAt: string | null;
      /** @description The change's own proration lines after the current discount, before tax (negative: a credit). The final adjustment is read on the same basis. Prorations already pending on that invoice (an added Stack's, an earlier change's) are in the total, never here */
      adjustment: number;
      /** @description The tax estimate on the change's lines */
      adjustmentTax: number;
      /** @description `adjustment + adjustmentTax`: what the change's prorations add to (or take off) the next invoice's total */
      adjustmentTotal: number;
      /** @description The change's own proration lines; `adjustment` is the sum of `amount - discount`, `adjustmentTax` the sum of `tax` */
      lines: components['schemas']['EstimateLine'][];
    };
    InvoiceLine: {
      /** @description In our words: `s2.acme on Standard` for a Stack's period, or a proration's credit or charge with its days (the processor's own line text is never shown). */
      description: string;
      /** @description The same words without the days (`Credit for the unused time of 1 Standard Stack`), for a reader that writes `periodStart` and `periodEnd` in its own format. */
      item: string;
      /** @description A credit or charge for the rest of a period (a Stack added, a Plan changed), not a period's price. */
      proration: boolean;
      /**
       * Format: date-time
       * @description The first moment the line bills: a month for a period line, the rest of the period for a proration.
       */
      periodStart: string;
      /** Format: date-time */
      periodEnd: string;
      /** @description The Stack the line is for; null for a proration, or a Stack billed beyond those the tenant has now. */
      stack: string | null;
      plan: ('standard' | 'plus' | 'pro') | null;
      /** @description Minor units, before the discount; negative: a credit. */
      amount: number;
      discount: number;
      tax: number;
    };
    /** @description An invoice in minor units; no processor id. */
    Invoice: {
      /** @description The number printed on the invoice (null on the upcoming one). */
      number: string | null;
      /** Format: date-time */
      issuedAt: string;
      /** @enum {string} */
      status: 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
      /** @description The status in words. */
      statusText: string;
      currency: string;
      periodStart: string | null;
      periodEnd: string | null;
      lines: components['schemas']['InvoiceLine'][];
      subtotal: number;
      discount: number;
      tax: number;
      total: number;
      /** @description Account credit used on it (the total less what the card is asked for). */
      creditApplied: number;
      amountDue: number;
      amountPaid: number;
      /** @description What was refunded of its payments. */
      refunded: number;
      paidAt: string | null;
      /** @description Our reference of the invoice (not the processor's id); null on the upcoming one. */
      ref: string | null;
      /** @description Our address of the invoice's page: GET /v1/billing/invoices/{ref}/view, which redirects to the processor's page; null on the upcoming one. */
      viewUrl: string | null;
      /** @description Our address of the invoice's PDF: GET /v1/billing/invoices/{ref}/pdf, which redirects to the processor's PDF; null when it has none (the upcoming one). */
      pdfUrl: string | null;
    };
    UpcomingInvoice: components['schemas']['Invoice'] & {
      /** @description When the processor makes and charges it. */
      invoiceAt: string | null;
    };
    InternalErrorError: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'internal_error';
      };
    };
    TemporarilyBusyError: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'temporarily_busy';
      };
    };
    AuthCallback400Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?:
          | 'invalid_state'
          | 'state_expired'
          | 'code_exchange_failed'
          | 'email_unverified'
          | 'invalid_request';
      };
    };
    AuthCallback403Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'sign_in_denied';
      };
    };
    AuthCallback502Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'code_host_unavailable';
      };
    };
    BadRequestError: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'invalid_json' | 'body_too_large' | 'unknown_field' | 'invalid_field' | 'invalid_body';
      };
    };
    UnauthenticatedError: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'missing_session' | 'invalid_session' | 'expired_session';
      };
    };
    OriginMismatchError: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'origin_mismatch';
      };
    };
    UnsupportedMediaTypeError: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'unsupported_media_type';
      };
    };
    /** @enum {string} */
    BadRequestCode: 'invalid_json' | 'body_too_large' | 'unknown_field' | 'invalid_field' | 'invalid_body';
    PostTenantSlug400Error: components['schemas']['Error'] & {
      error?: {
        code?:
          | components['schemas']['BadRequestCode']
          | (
              | 'slug_too_short'
              | 'slug_too_long'
              | 'slug_charset'
              | 'slug_start'
              | 'slug_end'
              | 'slug_hyphens'
              | 'slug_reserved'
            );
      };
    };
    /** @enum {string} */
    OriginMismatchCode: 'origin_mismatch';
    PostTenantSlug403Error: components['schemas']['Error'] & {
      error?: {
        code?: components['schemas']['OriginMismatchCode'] | 'admin_required';
      };
    };
    PostTenantSlug409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'slug_locked' | 'slug_taken' | 'new_account_not_yet' | 'new_account_exists';
      };
    };
    GetBillingStatus404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'account_not_found';
      };
    };
    GetBillingSummary502Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'processor_unavailable' | 'processor_error';
      };
    };
    GetBillingInvoices400Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'invalid_field';
      };
    };
    GetBillingInvoiceDocument404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?:
          | 'invoice_not_found'
          | 'account_not_found'
          | 'invoice_pdf_not_ready'
          | 'invoice_document_unknown';
      };
    };
    ForbiddenError: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'admin_required' | 'origin_mismatch';
      };
    };
    PostBillingCheckout409Error: components['schemas']['NoCapacity'] & {
      error?: {
        /** @enum {string} */
        code?:
          | 'slug_required'
          | 'subscription_exists'
          | 'checkout_in_progress'
          | 'no_capacity'
          | 'account_closing';
      };
    };
    PostBillingWaitlist409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'account_closing';
      };
    };
    PostBillingPortal409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'no_customer' | 'account_closing';
      };
    };
    PostTenantClose409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'close_in_portal' | 'subscription_exists' | 'account_closing';
      };
    };
    PostStacks409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?:
          | 'no_capacity'
          | 'stack_cap_reached'
          | 'billing_overdue'
          | 'no_subscription'
          | 'subscription_not_active'
          | 'cancellation_scheduled'
          | 'account_closing'
          | 'idempotency_key_reused'
          | 'request_in_progress';
      };
    };
    /** @enum {string} */
    TemporarilyBusyCode: 'temporarily_busy';
    PostStacks503Error: (components['schemas']['Error'] & {
      /** @description Seconds to wait before retrying. */
      retryAfterSeconds: number;
    }) & {
      error?: {
        code?:
          | components['schemas']['TemporarilyBusyCode']
          | ('subscription_busy' | 'processor_outcome_unknown');
      };
    };
    PostStacksPreview409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?:
          | 'no_capacity'
          | 'stack_cap_reached'
          | 'billing_overdue'
          | 'no_subscription'
          | 'subscription_not_active'
          | 'cancellation_scheduled'
          | 'account_closing';
      };
    };
    PostStacksPreview502Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'estimate_unavailable';
      };
    };
    GetStack404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'stack_not_found';
      };
    };
    PostStackDispatcherCredential409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'stack_torn_down' | 'credential_rotation_in_progress';
      };
    };
    PostStackProject409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'watched_projects_cap_reached' | 'project_exists' | 'stack_not_running';
      };
    };
    DeleteStackProject404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'stack_not_found' | 'project_not_found';
      };
    };
    PostPlanChangePreview409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'plan_changes_unavailable';
      };
    };
    PostPlanChange400Error: components['schemas']['Error'] & {
      error?: {
        code?: components['schemas']['BadRequestCode'] | 'invalid_idempotency_key';
      };
    };
    PostPlanChange409Error: components['schemas']['PlanChangeRefusal'] & {
      error?: {
        /** @enum {string} */
        code?:
          | 'plan_changes_unavailable'
          | 'idempotency_key_reused'
          | 'request_in_progress'
          | 'cancellation_scheduled'
          | 'account_closing'
          | 'billing_overdue'
          | 'subscription_not_active'
          | 'stack_not_running'
          | 'plan_unchanged'
          | 'operation_in_progress'
          | 'confirm_conflict';
      };
    };
    PostPlanChangeCancel404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'plan_change_not_found';
      };
    };
    PostPlanChangeCancel409Error: components['schemas']['PlanChangeRefusal'] & {
      error?: {
        /** @enum {string} */
        code?: 'plan_change_ended' | 'plan_change_not_cancellable' | 'cancel_conflict';
      };
    };
    AdminRequiredError: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'admin_required';
      };
    };
    PostCredential400Error: components['schemas']['CredentialRefusal'] & {
      error?: {
        code?:
          | components['schemas']['BadRequestCode']
          | (
              | 'invalid_credential_name'
              | 'kind_not_accepted'
              | 'consent_required'
              | 'consent_not_expected'
              | 'consent_version_unknown'
              | 'material_required'
              | 'material_not_expected'
              | 'invalid_auth_file'
            );
      };
    };
    PostCredential409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'provider_change' | 'ambient_not_available' | 'stack_torn_down' | 'credential_conflict';
      };
    };
    PostCredentialArchive404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'stack_not_found' | 'credential_not_found';
      };
    };
    PostCredentialArchive409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'credential_conflict';
      };
    };
    DeleteCredential400Error: components['schemas']['CredentialRefusal'] & {
      error?: {
        code?: components['schemas']['BadRequestCode'] | 'invalid_confirmation';
      };
    };
    DeleteCredential409Error: components['schemas']['CredentialRefusal'] & {
      error?: {
        /** @enum {string} */
        code?: 'credential_in_use' | 'confirmation_required' | 'credential_conflict';
      };
    };
    PutProjectCredentialRoutes400Error: components['schemas']['Error'] & {
      error?: {
        code?: components['schemas']['BadRequestCode'] | 'invalid_route';
      };
    };
    PutProjectCredentialRoutes404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'stack_not_found' | 'project_not_found' | 'credential_not_found';
      };
    };
    PutProjectCredentialRoutes409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'credential_archived';
      };
    };
    PutGuideCredential409Error: components['schemas']['CredentialRefusal'] & {
      error?: {
        /** @enum {string} */
        code?: 'credential_unusable';
      };
    };
    PostStackExport409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'stack_torn_down' | 'export_in_progress';
      };
    };
    GetStackExport404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'stack_not_found' | 'export_not_found';
      };
    };
    PostStackExportDownload409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'export_not_ready' | 'export_failed' | 'stack_torn_down';
      };
    };
    PostStackExportDownload410Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'export_expired';
      };
    };
    GetDispatcherDesiredState401Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'dispatcher_credential_required' | 'invalid_dispatcher_credential';
      };
    };
    PutDispatcherObservedState409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'unknown_version';
      };
    };
    GetDispatcherCredential404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'credential_not_found';
      };
    };
    PostDispatcherCredentialValidation409Error: components['schemas']['DispatcherCredentialRefusal'] & {
      error?: {
        /** @enum {string} */
        code?: 'stale_version' | 'credential_changed';
      };
    };
    PostDispatcherThread404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'project_not_found';
      };
    };
    PostDispatcherThread409Error: components['schemas']['DispatcherCredentialRefusal'] & {
      error?: {
        /** @enum {string} */
        code?: 'no_credential_route' | 'no_usable_credential' | 'thread_exists' | 'thread_not_resumable';
      };
    };
    PostDispatcherGuideSession409Error: components['schemas']['DispatcherCredentialRefusal'] & {
      error?: {
        /** @enum {string} */
        code?: 'guide_unavailable' | 'thread_exists' | 'thread_not_resumable';
      };
    };
    PostDispatcherExportParts404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'export_not_found';
      };
    };
    PostDispatcherExportParts409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'export_not_running';
      };
    };
    PostDispatcherExportOutcome409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'export_not_running' | 'nothing_uploaded' | 'upload_incomplete' | 'size_mismatch';
      };
    };
    PostOpsRefund400Error: components['schemas']['Error'] & {
      error?: {
        code?: components['schemas']['BadRequestCode'] | 'requested_in_future';
      };
    };
    PostOpsRefund403Error: (
      | components['schemas']['Error']
      | {
          message: string;
        }
    ) & {
      error?: {
        /** @enum {string} */
        code?: 'iam_required' | 'email_mismatch';
      };
    };
    PostOpsRefund404Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'tenant_not_found';
      };
    };
    PostOpsRefund409Error: components['schemas']['Error'] & {
      error?: {
        /** @enum {string} */
        code?: 'already_used' | 'decommissioning' | 'nothing_paid' | 'window_passed' | 'payment_not_seen_yet';
      };
    };
    /** @enum {string} */
    RawBodyTooLargeCode: 'body_too_large';
    ProcessorWebhook400Error: components['schemas']['Error'] & {
      error?: {
        code?:
          | components['schemas']['RawBodyTooLargeCode']
          | ('missing_signature' | 'invalid_signature' | 'invalid_payload');
      };
    };
  };
  responses: {
    /**
     * @description `admin_required` (a member asked for an administrator action) or `origin_mismatch` (a cookie-authenticated write from another origin)
     *
     *     - `admin_required`: "Only a tenant administrator can do this."
     */
    AdminRequired: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['AdminRequiredError'];
      };
    };
    /**
     * @description `invalid_state` (unknown, replayed, or started in another browser), `state_expired`, `code_exchange_failed`, `email_unverified`, `invalid_request`
     *
     *     - `invalid_state`: "… Start again at /v1/auth/sign-in."
     *     - `state_expired`: "This sign-in took longer than 10 minutes. Start again at /v1/auth/sign-in."
     *     - `code_exchange_failed`: "The code host refused the sign-in (…). Start again at /v1/auth/sign-in."
     *     - `email_unverified`: "Your code-host account has no verified primary email address: verify it there, then sign in again."
     *     - `invalid_request`: "The sign-in response has no code. Start again at /v1/auth/sign-in."
     */
    AuthCallback400: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['AuthCallback400Error'];
      };
    };
    /**
     * @description `sign_in_denied`: consent declined on the code host
     *
     *     - `sign_in_denied`: "… Start again at /v1/auth/sign-in."
     */
    AuthCallback403: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['AuthCallback403Error'];
      };
    };
    /**
     * @description `code_host_unavailable`
     *
     *     - `code_host_unavailable`: "The code host did not answer; try again shortly. Start again at /v1/auth/sign-in."
     */
    AuthCallback502: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['AuthCallback502Error'];
      };
    };
    /**
     * @description Malformed JSON, a body over the limit, an unknown field or a field of the wrong type (`invalid_json`, `body_too_large`, `unknown_field`, `invalid_field`, `invalid_body`).
     *
     *     - `invalid_json`: "The request body is not valid JSON."
     *     - `body_too_large`: "The request body must be at most … bytes."
     *     - `unknown_field`: "Unknown field "…": remove it."
     *     - `invalid_field`: "Field "…" is required. / Field "…" is invalid: expected …, received …."
     *     - `invalid_body`: "The request body must be a JSON object (or: what its schema says of it)."
     */
    BadRequest: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['BadRequestError'];
      };
    };
    /**
     * @description `invalid_confirmation`: a `confirmationToken` that is not the pending one (none pending, or another)
     *
     *     - `invalid_json`: "The request body is not valid JSON."
     *     - `body_too_large`: "The request body must be at most … bytes."
     *     - `unknown_field`: "Unknown field "…": remove it."
     *     - `invalid_field`: "Field "…" is required. / Field "…" is invalid: expected …, received …."
     *     - `invalid_body`: "The request body must be a JSON object (or: what its schema says of it)."
     *     - `invalid_confirmation`: "This confirmation token is not the one issued for this Credential: use the latest token, or ask again without one."
     */
    DeleteCredential400: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['DeleteCredential400Error'];
      };
    };
    /**
     * @description `credential_in_use` (with `uses`; nothing written), `confirmation_required` (with `threadCount`, `confirmationToken`, `expiresAt`), `credential_conflict` (it changed meanwhile: try again)
     *
     *     - `credential_in_use`: "Credential Routes name "…": change each one listed (PUT /v1/stacks/…/projects/{projectId}/credential-routes), then delete it."
     *     - `confirmation_required`: "… Threads are bound to "…" and will no longer be resumable. Repeat the request with confirmationToken=<the token> within … minutes to delete it."
     *     - `credential_conflict`: "This Credential changed meanwhile: read it again (GET /v1/credentials), then try again."
     */
    DeleteCredential409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['DeleteCredential409Error'];
      };
    };
    /**
     * @description `stack_not_found` or `project_not_found`
     *
     *     - `stack_not_found`: "This tenant has no Stack "…": GET /v1/stacks lists its Stacks."
     *     - `project_not_found`: "This Stack has no Project "…": GET /v1/stacks/…/projects lists them."
     */
    DeleteStackProject404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['DeleteStackProject404Error'];
      };
    };
    /**
     * @description `admin_required` (a member asked for an administrator action) or `origin_mismatch` (a cookie-authenticated write from another origin)
     *
     *     - `admin_required`: "Only a tenant administrator can do this."
     *     - `origin_mismatch`: "This request is authenticated by the session cookie but does not come from the tenant app (Origin header); send it from the tenant app or with Authorization: Bearer."
     */
    Forbidden: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['ForbiddenError'];
      };
    };
    /**
     * @description `invoice_not_found` (none of the tenant's invoices has this reference), `account_not_found` (`account` names no account of yours), `invoice_pdf_not_ready` (the invoice has no PDF yet) or `invoice_document_unknown` (`document` is neither `view` nor `pdf`)
     *
     *     - `invoice_not_found`: "None of your invoices has this reference: open the invoice from your list of invoices (GET /v1/billing/invoices)."
     *     - `account_not_found`: "You have no account with this slug: leave `account` out for your current one."
     *     - `invoice_pdf_not_ready`: "This invoice has no PDF yet: view the invoice instead."
     *     - `invoice_document_unknown`: "An invoice is shown as `view` (its page) or `pdf`: use one of those."
     */
    GetBillingInvoiceDocument404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetBillingInvoiceDocument404Error'];
      };
    };
    /**
     * @description `invalid_field`: `limit` outside 1 to 25, or a `cursor` that is not a `next` we gave
     *
     *     - `invalid_field`: "Field "…" is required. / Field "…" is invalid: expected …, received …."
     */
    GetBillingInvoices400: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetBillingInvoices400Error'];
      };
    };
    /**
     * @description `account_not_found`: you have no account with this slug
     *
     *     - `account_not_found`: "You have no account with this slug: leave `account` out for your current one."
     */
    GetBillingStatus404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetBillingStatus404Error'];
      };
    };
    /**
     * @description `processor_unavailable` or `processor_error`: the processor did not answer or refused; retry later
     *
     *     - `processor_unavailable`: "The payment processor did not answer; nothing was charged. Try again in a moment."
     *     - `processor_error`: "The payment processor refused the request; nothing was charged. Contact support if this persists."
     */
    GetBillingSummary502: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetBillingSummary502Error'];
      };
    };
    /**
     * @description `credential_not_found`: the Stack has no such Credential (deleted meanwhile: nothing to validate)
     *
     *     - `credential_not_found`: "This Stack has no Credential "…": …."
     */
    GetDispatcherCredential404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetDispatcherCredential404Error'];
      };
    };
    /**
     * @description `dispatcher_credential_required` or `invalid_dispatcher_credential`
     *
     *     - `dispatcher_credential_required`: "Send the Stack's Dispatcher credential as Authorization: Bearer scd_…; a tenant session does not reach this route."
     *     - `invalid_dispatcher_credential`: "The Dispatcher credential is not valid (unknown, or rotated out more than an hour ago): use the Stack's current credential."
     */
    GetDispatcherDesiredState401: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetDispatcherDesiredState401Error'];
      };
    };
    /**
     * @description `stack_not_found`: `stackId` names no Stack of the tenant
     *
     *     - `stack_not_found`: "This tenant has no Stack "…": GET /v1/stacks lists its Stacks."
     */
    GetPlanChanges404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetStack404Error'];
      };
    };
    /**
     * @description `stack_not_found`: the tenant has no such Stack
     *
     *     - `stack_not_found`: "This tenant has no Stack "…": GET /v1/stacks lists its Stacks."
     */
    GetStack404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetStack404Error'];
      };
    };
    /**
     * @description `stack_not_found`, `export_not_found`
     *
     *     - `stack_not_found`: "This tenant has no Stack "…": GET /v1/stacks lists its Stacks."
     *     - `export_not_found`: "This Stack has no export "…": start one with POST /v1/stacks/…/exports."
     */
    GetStackExport404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetStackExport404Error'];
      };
    };
    /**
     * @description `internal_error`: a fault of ours (a defect, or a setting the platform team has not made yet, such as a placeholder secret): nothing is to fix in the request; it is logged and alarmed, and the same request may be sent again later.
     *
     *     - `internal_error`: "Something went wrong on our side; retry later."
     */
    InternalError: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['InternalErrorError'];
      };
    };
    /**
     * @description `admin_required` (a member asked for an administrator action) or `origin_mismatch` (a cookie-authenticated write from another origin)
     *
     *     - `origin_mismatch`: "This request is authenticated by the session cookie but does not come from the tenant app (Origin header); send it from the tenant app or with Authorization: Bearer."
     */
    OriginMismatch: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['OriginMismatchError'];
      };
    };
    /** @description A body over API Gateway's 10 MB payload limit, answered by API Gateway itself (`{"message":"Request Entity Too Large"}`, not the error shape); bodies over the handlers' 16 KB limit are 400 `body_too_large`. */
    PayloadTooLarge: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        /**
         * @example {
         *       "message": "Request Entity Too Large"
         *     }
         */
        'application/json': {
          message?: string;
        };
      };
    };
    /**
     * @description `slug_required`, `subscription_exists`, `checkout_in_progress`, or `no_capacity` with `reason` and `availablePlans`; `account_closing`: the account is decommissioning; only the billing status and the export remain (teardownAt says until when)
     *
     *     - `slug_required`: "Lock in your slug first (POST /v1/tenant/slug), then check out."
     *     - `subscription_exists`: "This tenant already has a subscription: add Stacks or change a Plan instead."
     *     - `checkout_in_progress`: "A checkout for this tenant is being prepared; repeat the request in a few seconds."
     *     - `no_capacity`: "The … Plan cannot be placed in your Home Region now. Choose one of availablePlans, or join the waitlist for … (POST /v1/billing/waitlist)."
     *     - `account_closing`: "This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data…."
     */
    PostBillingCheckout409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostBillingCheckout409Error'];
      };
    };
    /**
     * @description `processor_unavailable` or `processor_error`: nothing was charged
     *
     *     - `processor_unavailable`: "The payment processor did not answer; nothing was charged. Try again in a moment."
     *     - `processor_error`: "The payment processor refused the request; nothing was charged. Contact support if this persists."
     */
    PostBillingCheckout502: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetBillingSummary502Error'];
      };
    };
    /**
     * @description `no_customer`: complete a checkout first; `account_closing`: the account is decommissioning; only the billing status and the export remain (teardownAt says until when)
     *
     *     - `no_customer`: "There is no billing account yet: complete a checkout first (POST /v1/billing/checkout)."
     *     - `account_closing`: "This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data…."
     */
    PostBillingPortal409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostBillingPortal409Error'];
      };
    };
    /**
     * @description `processor_unavailable` or `processor_error`
     *
     *     - `processor_unavailable`: "The payment processor did not answer; nothing was charged. Try again in a moment."
     *     - `processor_error`: "The payment processor refused the request; nothing was charged. Contact support if this persists."
     */
    PostBillingPortal502: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetBillingSummary502Error'];
      };
    };
    /**
     * @description `account_closing`: the account is decommissioning; only the billing status and the export remain (teardownAt says until when)
     *
     *     - `account_closing`: "This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data…."
     */
    PostBillingWaitlist409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostBillingWaitlist409Error'];
      };
    };
    /**
     * @description `invalid_credential_name`, `kind_not_accepted` (with `accepted`), `consent_required`, `consent_not_expected`, `consent_version_unknown` (with `currentTextVersion`: `consent.textVersion` is not the current consent text's version), `material_required`, `material_not_expected` (`ambient`), `invalid_auth_file` (not JSON, not an object, empty, or over 16384 bytes), or a body error (`invalid_json`, `body_too_large` (over 36864 bytes), `unknown_field`, `invalid_field`, `invalid_body`)
     *
     *     - `invalid_json`: "The request body is not valid JSON."
     *     - `body_too_large`: "The request body must be at most … bytes."
     *     - `unknown_field`: "Unknown field "…": remove it."
     *     - `invalid_field`: "Field "…" is required. / Field "…" is invalid: expected …, received …."
     *     - `invalid_body`: "The request body must be a JSON object (or: what its schema says of it)."
     *     - `invalid_credential_name`: ""…" is a word the API keeps (GET /v1/credentials/…); choose another name."
     *     - `kind_not_accepted`: "… accepts …; "…" is not one of them."
     *     - `consent_required`: "A … Credential spends your personal subscription with the provider: send the administrator's consent as consent: { "textVersion": "<the version of the consent text shown> " }."
     *     - `consent_not_expected`: "An api_key needs no consent (its usage is metered by the provider): leave consent out."
     *     - `consent_version_unknown`: "The consent text is at version "…", not "…": show the current text (GET /v1/credentials/catalog) and send consent: { "textVersion": "…" }."
     *     - `material_required`: "A … Credential needs its material: send it as "material"."
     *     - `material_not_expected`: "An ambient Credential stores no authentication value: leave "material" out."
     *     - `invalid_auth_file`: "The auth file was refused: …."
     */
    PostCredential400: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostCredential400Error'];
      };
    };
    /**
     * @description `provider_change` (the name belongs to a Credential of another Provider: choose a new name), `ambient_not_available` (the Stack's Dispatcher does not report a Local Stack with the host Executor), `stack_torn_down` (the Stack was torn down), `credential_conflict` (another provisioning of the same name came first: read the list, then try again)
     *
     *     - `provider_change`: "A Credential keeps the Provider it was created with: choose a new name for a Credential of another Provider."
     *     - `ambient_not_available`: "An ambient Credential uses the host's own runtime login, so it is available only on a Local Stack whose Dispatcher reports the host Executor. Use another kind on this Stack."
     *     - `stack_torn_down`: "This Stack has been torn down: its data, its exports, its Credentials and its Dispatcher are gone with it."
     *     - `credential_conflict`: "This Credential changed meanwhile: read it again (GET /v1/credentials), then try again."
     */
    PostCredential409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostCredential409Error'];
      };
    };
    /**
     * @description `stack_not_found` or `credential_not_found`
     *
     *     - `stack_not_found`: "This tenant has no Stack "…": GET /v1/stacks lists its Stacks."
     *     - `credential_not_found`: "This Stack has no Credential "…": …."
     */
    PostCredentialArchive404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostCredentialArchive404Error'];
      };
    };
    /**
     * @description `credential_conflict`: it changed meanwhile; try again
     *
     *     - `credential_conflict`: "This Credential changed meanwhile: read it again (GET /v1/credentials), then try again."
     */
    PostCredentialArchive409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostCredentialArchive409Error'];
      };
    };
    /**
     * @description `credential_not_found`
     *
     *     - `credential_not_found`: "This Stack has no Credential "…": …."
     */
    PostDispatcherCredentialValidation404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetDispatcherCredential404Error'];
      };
    };
    /**
     * @description `stale_version` (with `currentVersion`: the Credential was rotated meanwhile; validate the new material), `credential_changed` (it kept changing: report again)
     *
     *     - `stale_version`: "Version … is not the Credential's current material (version …): it was rotated; read it again and validate the new one."
     *     - `credential_changed`: "The Credential kept changing meanwhile: report again."
     */
    PostDispatcherCredentialValidation409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostDispatcherCredentialValidation409Error'];
      };
    };
    /**
     * @description `export_not_found`
     *
     *     - `export_not_found`: "This Stack has no export "…": start one with POST /v1/stacks/…/exports."
     */
    PostDispatcherExportOutcome404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostDispatcherExportParts404Error'];
      };
    };
    /**
     * @description `export_not_running`, `nothing_uploaded` (no part URL was asked for), `upload_incomplete` (S3 refused the parts: the export has failed), `size_mismatch` (with `storedBytes`: the export has failed)
     *
     *     - `export_not_running`: "Export "…" is …: there is nothing to upload."
     *     - `nothing_uploaded`: "No part was uploaded: ask for part URLs first."
     *     - `upload_incomplete`: "…: the export has failed; start a new one."
     *     - `size_mismatch`: "The stored archive is not the size reported: the export has failed."
     */
    PostDispatcherExportOutcome409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostDispatcherExportOutcome409Error'];
      };
    };
    /**
     * @description `export_not_found`: the Stack has no such export
     *
     *     - `export_not_found`: "This Stack has no export "…": start one with POST /v1/stacks/…/exports."
     */
    PostDispatcherExportParts404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostDispatcherExportParts404Error'];
      };
    };
    /**
     * @description `export_not_running` (with `status`): it is ready or failed already
     *
     *     - `export_not_running`: "Export "…" is …: there is nothing to upload."
     */
    PostDispatcherExportParts409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostDispatcherExportParts409Error'];
      };
    };
    /**
     * @description `guide_unavailable` (with `reason`, and `credential` and `cleared` as they apply), `thread_exists` (the `threadId` is bound to a Project's Thread), `thread_not_resumable` (with `reason` and `credential`)
     *
     *     - `guide_unavailable`: "The Guide Credential "…" cannot be used (…); the selection is cleared: an administrator selects one with PUT /v1/stacks/{stackId}/guide-credential."
     *     - `thread_exists`: "Thread "…" is already bound to Project "…" for …: use a new thread id."
     *     - `thread_not_resumable`: "Thread "…" is bound to Credential "…", which the subscription policy disables: start a new Thread."
     */
    PostDispatcherGuideSession409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostDispatcherGuideSession409Error'];
      };
    };
    /**
     * @description `project_not_found`: the Stack has no such Project
     *
     *     - `project_not_found`: "This Stack has no Project "…": GET /v1/stacks/…/projects lists them."
     */
    PostDispatcherThread404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostDispatcherThread404Error'];
      };
    };
    /**
     * @description `no_credential_route` (with `activity`), `no_usable_credential` (with `activity` and `reasons`), `thread_exists` (the `threadId` is bound to another Project or activity: use a new id), `thread_not_resumable` (with `reason` and `credential`: start a new Thread)
     *
     *     - `no_credential_route`: "Project "…" has no Credential Route for …: an administrator sets one with PUT /v1/stacks/{stackId}/projects/{projectId}/credential-routes."
     *     - `no_usable_credential`: "No Credential of Project "…"'s … route is usable now: …."
     *     - `thread_exists`: "Thread "…" is already bound to Project "…" for …: use a new thread id."
     *     - `thread_not_resumable`: "Thread "…" is bound to Credential "…", which the subscription policy disables: start a new Thread."
     */
    PostDispatcherThread409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostDispatcherThread409Error'];
      };
    };
    /**
     * @description `requested_in_future`: the request time is later than now; or an invalid body
     *
     *     - `invalid_json`: "The request body is not valid JSON."
     *     - `body_too_large`: "The request body must be at most … bytes."
     *     - `unknown_field`: "Unknown field "…": remove it."
     *     - `invalid_field`: "Field "…" is required. / Field "…" is invalid: expected …, received …."
     *     - `invalid_body`: "The request body must be a JSON object (or: what its schema says of it)."
     *     - `requested_in_future`: "The request time (…) is in the future: give the time support received the email (--requested-at), never later than now."
     */
    PostOpsRefund400: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostOpsRefund400Error'];
      };
    };
    /**
     * @description Not IAM-signed (API Gateway's own 403; locally always), `iam_required`, or `email_mismatch`: the address is neither the customer's nor an administrator's
     *
     *     - `iam_required`: "Operators only: sign the request with IAM (SigV4)."
     *     - `email_mismatch`: "The email address is neither the account's billing address nor an administrator's: ask the tenant to write from the account's address."
     */
    PostOpsRefund403: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostOpsRefund403Error'];
      };
    };
    /**
     * @description `tenant_not_found`: no tenant has the slug
     *
     *     - `tenant_not_found`: "No tenant has the slug "…"."
     */
    PostOpsRefund404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostOpsRefund404Error'];
      };
    };
    /**
     * @description `already_used` (once per tenant, ever), `decommissioning` (the account is already leaving), `nothing_paid` (no invoice above zero was paid when the email was received), `window_passed` (`windowEndsAt` says when it ended), or `payment_not_seen_yet` (try again in a minute)
     *
     *     - `already_used`: "This tenant already used its money-back refund (granted …); it can be used once per person."
     *     - `decommissioning`: "The account is already leaving (decommissioning): there is no subscription left to refund under the money-back window."
     *     - `nothing_paid`: "Nothing had been paid when the request was received: the window opens with the first invoice paid for more than zero."
     *     - `window_passed`: "The money-back window ended … (14 days after the first paid invoice); the request was received …."
     *     - `payment_not_seen_yet`: "The first payment is not recorded yet (the sweep records it within a minute of the payment): try again in a minute."
     */
    PostOpsRefund409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostOpsRefund409Error'];
      };
    };
    /**
     * @description `processor_unavailable` or `processor_error`: the grant stays under way; the same request continues it
     *
     *     - `processor_unavailable`: "The payment processor did not answer; nothing was charged. Try again in a moment."
     *     - `processor_error`: "The payment processor refused the request; nothing was charged. Contact support if this persists."
     */
    PostOpsRefund502: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetBillingSummary502Error'];
      };
    };
    /**
     * @description `invalid_idempotency_key` (with `field`: `Idempotency-Key`), or a body error (`invalid_json`, `body_too_large`, `unknown_field`, `invalid_field`, `invalid_body`)
     *
     *     - `invalid_json`: "The request body is not valid JSON."
     *     - `body_too_large`: "The request body must be at most … bytes."
     *     - `unknown_field`: "Unknown field "…": remove it."
     *     - `invalid_field`: "Field "…" is required. / Field "…" is invalid: expected …, received …."
     *     - `invalid_body`: "The request body must be a JSON object (or: what its schema says of it)."
     *     - `invalid_idempotency_key`: "Idempotency-Key must be 1 to 255 visible ASCII characters."
     */
    PostPlanChange400: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostPlanChange400Error'];
      };
    };
    /**
     * @description `plan_changes_unavailable` (a release gate is not ready; with `gatesNotReady`; checked first), `idempotency_key_reused` (the same Idempotency-Key with another Stack or Plan), `request_in_progress` (the first request with this Idempotency-Key is still being handled: repeat it in a few seconds), then the first of these that applies, in the order of the preview's `refusals`: `cancellation_scheduled` (a cancellation is scheduled for the end of the paid period: named before and after the sweep moved the tenant to decommissioning for it), `account_closing` (the tenant is decommissioning for another cause), `billing_overdue` (the tenant is past-due or suspended: pay in the billing portal first), `subscription_not_active` (the processor does not report the subscription active, even while our state says active), `stack_not_running` (the Stack is decommissioning or torn down), `plan_unchanged` (the Stack is already on this Plan), `operation_in_progress` (another change of this Stack is past Waiting for Capacity and has not ended); and `confirm_conflict` (the Stack kept changing while the change was confirmed: read GET /v1/plan-changes?stackId=, then try again). Nothing was written. Missing capacity is never a refusal: the change queues.
     *
     *     - `plan_changes_unavailable`: "Plan Changes are not available yet: these release gates are not ready: …."
     *     - `idempotency_key_reused`: "This Idempotency-Key was used with another request body: use a new key for a new request."
     *     - `request_in_progress`: "This request is being handled: repeat it in a few seconds."
     *     - `cancellation_scheduled`: "A cancellation of the subscription is scheduled for the end of the billing period: the account closes then, so …. You can still read your billing status and export your data until the Stacks are torn down."
     *     - `account_closing`: "This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data…."
     *     - `billing_overdue`: "Billing is …: pay the open invoice or update the payment method in the billing portal (POST /v1/billing/portal), then …."
     *     - `subscription_not_active`: "The payment processor does not report the subscription active now (a payment may be due: see the billing portal, POST /v1/billing/portal): … while it is."
     *     - `stack_not_running`: "This Stack is …: only a running Stack can …."
     *     - `plan_unchanged`: "The Stack is already on this Plan: choose another Plan."
     *     - `operation_in_progress`: "Another change is already being carried out on this Stack: wait until it completes or rolls back (GET /v1/plan-changes?stackId=...)."
     *     - `confirm_conflict`: "The Stack kept changing while the change was confirmed: read GET /v1/plan-changes?stackId=..., then try again."
     */
    PostPlanChange409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostPlanChange409Error'];
      };
    };
    /**
     * @description `processor_unavailable` or `processor_error`: the subscription could not be read; nothing was recorded
     *
     *     - `processor_unavailable`: "The payment processor did not answer; nothing was charged. Try again in a moment."
     *     - `processor_error`: "The payment processor refused the request; nothing was charged. Contact support if this persists."
     */
    PostPlanChange502: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetBillingSummary502Error'];
      };
    };
    /**
     * @description `plan_change_not_found`: the tenant has no such Plan Change (another tenant's change, or an id that is not one, answers the same)
     *
     *     - `plan_change_not_found`: "This tenant has no Plan Change "…": GET /v1/plan-changes lists them."
     */
    PostPlanChangeCancel404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostPlanChangeCancel404Error'];
      };
    };
    /**
     * @description `plan_change_ended` (the change already ended; its `status` at top level), `plan_change_not_cancellable` (the change is `preparing`, `switching` or `verifying`: it completes or rolls back on its own; its `status` at top level), `cancel_conflict` (the change kept moving while it was cancelled: try again)
     *
     *     - `plan_change_ended`: "This change has already ended (…); there is nothing to cancel."
     *     - `plan_change_not_cancellable`: "This change is …: the cancel window closed when the final backup began (Preparing). It completes or rolls back on its own."
     *     - `cancel_conflict`: "The change kept moving while it was cancelled: try again."
     */
    PostPlanChangeCancel409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostPlanChangeCancel409Error'];
      };
    };
    /**
     * @description `stack_not_found`
     *
     *     - `stack_not_found`: "This tenant has no Stack "…": GET /v1/stacks lists its Stacks."
     */
    PostPlanChangePreview404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['GetStack404Error'];
      };
    };
    /**
     * @description `plan_changes_unavailable` (with `gatesNotReady`)
     *
     *     - `plan_changes_unavailable`: "Plan Changes are not available yet: these release gates are not ready: …."
     */
    PostPlanChangePreview409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostPlanChangePreview409Error'];
      };
    };
    /**
     * @description `stack_torn_down` or `credential_rotation_in_progress`
     *
     *     - `stack_torn_down`: "This Stack has been torn down: its data, its exports, its Credentials and its Dispatcher are gone with it."
     *     - `credential_rotation_in_progress`: "Another rotation of this credential just happened: retry."
     */
    PostStackDispatcherCredential409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostStackDispatcherCredential409Error'];
      };
    };
    /**
     * @description `stack_torn_down` (nothing left to export), `export_in_progress` (with `exportId`, the running one)
     *
     *     - `stack_torn_down`: "This Stack has been torn down: its data, its exports, its Credentials and its Dispatcher are gone with it."
     *     - `export_in_progress`: "An export of this Stack is under way: follow it with GET /v1/stacks/{stackId}/exports/{exportId}."
     */
    PostStackExport409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostStackExport409Error'];
      };
    };
    /**
     * @description `export_not_ready`, `export_failed`, `stack_torn_down`
     *
     *     - `export_not_ready`: "The archive is not ready yet: follow GET /v1/stacks/{stackId}/exports/{exportId}."
     *     - `export_failed`: "This export failed (GET shows why): start a new one with POST /v1/stacks/{stackId}/exports."
     *     - `stack_torn_down`: "This Stack has been torn down: its data, its exports, its Credentials and its Dispatcher are gone with it."
     */
    PostStackExportDownload409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostStackExportDownload409Error'];
      };
    };
    /**
     * @description `export_expired`: archives are kept 7 days after they are ready
     *
     *     - `export_expired`: "Archives are kept 7 days: start a new export with POST /v1/stacks/{stackId}/exports."
     */
    PostStackExportDownload410: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostStackExportDownload410Error'];
      };
    };
    /**
     * @description `watched_projects_cap_reached` (with `watchedProjectsCap`), `project_exists`, `stack_not_running`
     *
     *     - `watched_projects_cap_reached`: "This Stack watches … Projects, its Plan's cap: remove one with its Remove button, or change the Stack to a larger Plan (DELETE /v1/stacks/…/projects/{projectId})."
     *     - `project_exists`: "The repository … is already a Project of this Stack."
     *     - `stack_not_running`: "This Stack is …: only a running Stack can …."
     */
    PostStackProject409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostStackProject409Error'];
      };
    };
    /**
     * @description `no_capacity` (with `reason`, `availablePlans`), `stack_cap_reached` (with `stackCap`), `billing_overdue`, `no_subscription`, `subscription_not_active` (the processor does not report the subscription active, whatever our state says), `cancellation_scheduled` (a cancellation is scheduled for the end of the paid period, before and after the sweep moved the tenant to decommissioning; with `teardownAt`, null until the sweep set it), `account_closing` (leaving for another cause), `idempotency_key_reused`, `request_in_progress`
     *
     *     - `no_capacity`: "The … Plan cannot be placed in your Home Region now. Choose one of availablePlans, or join the waitlist for … (POST /v1/billing/waitlist)."
     *     - `stack_cap_reached`: "A tenant can have … Stacks: this one has …."
     *     - `billing_overdue`: "Billing is …: pay the open invoice or update the payment method in the billing portal (POST /v1/billing/portal), then …."
     *     - `no_subscription`: "Stacks can be added once the first checkout is paid (POST /v1/billing/checkout)."
     *     - `subscription_not_active`: "The payment processor does not report the subscription active now (a payment may be due: see the billing portal, POST /v1/billing/portal): … while it is."
     *     - `cancellation_scheduled`: "A cancellation of the subscription is scheduled for the end of the billing period: the account closes then, so …. You can still read your billing status and export your data until the Stacks are torn down."
     *     - `account_closing`: "This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data…."
     *     - `idempotency_key_reused`: "This Idempotency-Key was used with another request body: use a new key for a new request."
     *     - `request_in_progress`: "This request is being handled: repeat it in a few seconds."
     */
    PostStacks409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostStacks409Error'];
      };
    };
    /**
     * @description `subscription_busy`: another change of the tenant's subscription items (a Plan Change's billing commit, a price move, another add) held them for more than 3 seconds; nothing was added or charged. Retry after `retryAfterSeconds` (also sent as the `Retry-After` header), with the same Idempotency-Key if one was sent.
     *
     *     - `temporarily_busy`: "…, so this request was not saved. …"
     *     - `subscription_busy`: "Another change of this subscription is being made: nothing was added or charged. Try again in … s (with the same Idempotency-Key, if you sent one)."
     *     - `processor_outcome_unknown`: "The payment processor did not answer, and whether it charged the added Stack is not known yet; no Stack was created. Retry with the same Idempotency-Key: the retry creates the Stack if it was charged, and adds it (charged once) if it was not."
     */
    PostStacks503: {
      headers: {
        /** @description Seconds to wait before retrying (the same as `retryAfterSeconds`). */
        'Retry-After'?: number;
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostStacks503Error'];
      };
    };
    /**
     * @description the refusals of POST /v1/stacks
     *
     *     - `no_capacity`: "The … Plan cannot be placed in your Home Region now. Choose one of availablePlans, or join the waitlist for … (POST /v1/billing/waitlist)."
     *     - `stack_cap_reached`: "A tenant can have … Stacks: this one has …."
     *     - `billing_overdue`: "Billing is …: pay the open invoice or update the payment method in the billing portal (POST /v1/billing/portal), then …."
     *     - `no_subscription`: "Stacks can be added once the first checkout is paid (POST /v1/billing/checkout)."
     *     - `subscription_not_active`: "The payment processor does not report the subscription active now (a payment may be due: see the billing portal, POST /v1/billing/portal): … while it is."
     *     - `cancellation_scheduled`: "A cancellation of the subscription is scheduled for the end of the billing period: the account closes then, so …. You can still read your billing status and export your data until the Stacks are torn down."
     *     - `account_closing`: "This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data…."
     */
    PostStacksPreview409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostStacksPreview409Error'];
      };
    };
    /**
     * @description `estimate_unavailable`: the processor could not estimate; no figure is shown
     *
     *     - `estimate_unavailable`: "The payment processor could not estimate the cost now, so no figure is shown; try again in a moment."
     */
    PostStacksPreview502: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostStacksPreview502Error'];
      };
    };
    /**
     * @description `close_in_portal`: the account has a subscription, cancel it in the portal; `subscription_exists`: a checkout was just paid; `account_closing`: the account is decommissioning; only the billing status and the export remain (teardownAt says until when)
     *
     *     - `close_in_portal`: "This account has a subscription: cancel it in the billing portal (POST /v1/billing/portal); the account then closes."
     *     - `subscription_exists`: "This tenant already has a subscription: add Stacks or change a Plan instead."
     *     - `account_closing`: "This account is closing (decommissioning) and nothing new can be bought or changed. You can still read your billing status and export your data…."
     */
    PostTenantClose409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostTenantClose409Error'];
      };
    };
    /**
     * @description `slug_too_short`, `slug_too_long`, `slug_charset`, `slug_start`, `slug_end`, `slug_hyphens` (`--` as the third and fourth characters, e.g. `xn--`), `slug_reserved`, or a body error
     *
     *     - `invalid_json`: "The request body is not valid JSON."
     *     - `body_too_large`: "The request body must be at most … bytes."
     *     - `unknown_field`: "Unknown field "…": remove it."
     *     - `invalid_field`: "Field "…" is required. / Field "…" is invalid: expected …, received …."
     *     - `invalid_body`: "The request body must be a JSON object (or: what its schema says of it)."
     *     - `slug_too_short`: "The slug must have at least 3 characters."
     *     - `slug_too_long`: "The slug must have at most 40 characters."
     *     - `slug_charset`: "The slug may contain only lowercase letters a-z, digits and "-"."
     *     - `slug_start`: "The slug must start with a letter."
     *     - `slug_end`: "The slug must not end with "-"."
     *     - `slug_hyphens`: "The slug must not have "--" as its third and fourth characters (reserved for encoded names such as "xn--"); remove or move a hyphen."
     *     - `slug_reserved`: ""…" is reserved; choose another slug."
     */
    PostTenantSlug400: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostTenantSlug400Error'];
      };
    };
    /**
     * @description `admin_required`: a member may read the slug but only an administrator locks it
     *
     *     - `origin_mismatch`: "This request is authenticated by the session cookie but does not come from the tenant app (Origin header); send it from the tenant app or with Authorization: Bearer."
     *     - `admin_required`: "Only a tenant administrator can do this."
     */
    PostTenantSlug403: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostTenantSlug403Error'];
      };
    };
    /**
     * @description `slug_locked` (this tenant already has another slug; its `slug` is returned at top level) or `slug_taken` (another tenant holds it); on an account that has left: `new_account_not_yet` (the old account still serves or can be exported: `newAccountFrom` gives from when, null for a close still being carried out), `new_account_exists` (a new account was already started with another slug), or `slug_taken` (also for the old account's own slug)
     *
     *     - `slug_locked`: "This tenant's slug is "…" and is permanent; it cannot be changed."
     *     - `slug_taken`: "The slug "…" stays with your former account for good; choose another for the new one."
     *     - `new_account_not_yet`: "…"
     *     - `new_account_exists`: "You already started a new account with the slug "…": sign in again to use it."
     */
    PostTenantSlug409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PostTenantSlug409Error'];
      };
    };
    /**
     * @description `missing_signature`, `invalid_signature` (tampered, other secret or stale), `invalid_payload` (correctly signed but not JSON, or not a processor event with `id`, `type` and `data.object`; nothing is queued) or `body_too_large`
     *
     *     - `body_too_large`: "The request body must be at most … bytes."
     *     - `missing_signature`: "The Stripe-Signature header is required."
     *     - `invalid_signature`: "The signature does not match the payload, or it is too old."
     *     - `invalid_payload`: "…: send a processor event, a JSON object with "id", "type" and "data.object"."
     */
    ProcessorWebhook400: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['ProcessorWebhook400Error'];
      };
    };
    /**
     * @description `unknown_version`: a version newer than published, or the Stack changed meanwhile (read the desired state again); nothing was stored
     *
     *     - `unknown_version`: "…: report the version you applied."
     */
    PutDispatcherObservedState409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PutDispatcherObservedState409Error'];
      };
    };
    /**
     * @description `credential_unusable` (with `reason`: `archived` or `validation_failed`)
     *
     *     - `credential_unusable`: ""…" cannot be the Guide Credential: it is refused by its validation. Provision it again or choose another."
     */
    PutGuideCredential409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PutGuideCredential409Error'];
      };
    };
    /**
     * @description `invalid_route` (a Fallback equal to its Primary; `field` says which), or a body error (`invalid_json`, `body_too_large`, `unknown_field`, `invalid_field`, `invalid_body`)
     *
     *     - `invalid_json`: "The request body is not valid JSON."
     *     - `body_too_large`: "The request body must be at most … bytes."
     *     - `unknown_field`: "Unknown field "…": remove it."
     *     - `invalid_field`: "Field "…" is required. / Field "…" is invalid: expected …, received …."
     *     - `invalid_body`: "The request body must be a JSON object (or: what its schema says of it)."
     *     - `invalid_route`: "The … route's Fallback must differ from its Primary."
     */
    PutProjectCredentialRoutes400: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PutProjectCredentialRoutes400Error'];
      };
    };
    /**
     * @description `stack_not_found`, `project_not_found`, `credential_not_found` (a name that is no Credential of the Stack)
     *
     *     - `stack_not_found`: "This tenant has no Stack "…": GET /v1/stacks lists its Stacks."
     *     - `project_not_found`: "This Stack has no Project "…": GET /v1/stacks/…/projects lists them."
     *     - `credential_not_found`: "This Stack has no Credential "…": …."
     */
    PutProjectCredentialRoutes404: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PutProjectCredentialRoutes404Error'];
      };
    };
    /**
     * @description `credential_archived`: an archived Credential cannot be a Primary or a Fallback (`field` says which)
     *
     *     - `credential_archived`: ""…" is archived: it cannot be the … …."
     */
    PutProjectCredentialRoutes409: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['PutProjectCredentialRoutes409Error'];
      };
    };
    /**
     * @description The request met another write to the same records or a throttled table: nothing of it was saved; send it again after `retryAfterSeconds` (also the `Retry-After` header), with the same Idempotency-Key if one was sent.
     *
     *     - `temporarily_busy`: "…, so this request was not saved. …"
     */
    TemporarilyBusy: {
      headers: {
        /** @description Seconds to wait before retrying (the same as `retryAfterSeconds`). */
        'Retry-After'?: number;
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['TemporarilyBusyError'];
      };
    };
    /** @description API Gateway's own throttle (the stage's rate, or a Dispatcher route's, sized for the fleet), answered before any of our code runs (`{"message":"Too Many Requests"}`, not the error shape): nothing was done; send the request again after a short, growing pause (the typed client does). */
    Throttled: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        /**
         * @example {
         *       "message": "Too Many Requests"
         *     }
         */
        'application/json': {
          message?: string;
        };
      };
    };
    /**
     * @description No session, or a revoked, unknown or expired one (`missing_session`, `invalid_session`, `expired_session`).
     *
     *     - `missing_session`: "A Dispatcher credential reaches only the /v1/dispatcher routes: sign in as a tenant user for this one."
     *     - `invalid_session`: "The session token is not valid (revoked or unknown): sign in again."
     *     - `expired_session`: "The session has expired: sign in again."
     */
    Unauthenticated: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['UnauthenticatedError'];
      };
    };
    /**
     * @description `unsupported_media_type`: a request body sent with a Content-Type other than `application/json` (parameters such as `; charset=utf-8` are fine). A request without a body needs none. Nothing was done.
     *
     *     - `unsupported_media_type`: "The request body must be JSON: send Content-Type: application/json (received …)."
     */
    UnsupportedMediaType: {
      headers: {
        [name: string]: unknown;
      };
      content: {
        'application/json': components['schemas']['UnsupportedMediaTypeError'];
      };
    };
  };
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  AuthSignIn: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description To the code host's authorize page */
      302: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  AuthCallback: {
    parameters: {
      query: {
        code?: string;
        state: string;
        error?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Signed in (JSON clients) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            sessionToken: string;
          };
        };
      };
      /** @description Signed in; to the tenant app (browsers) */
      302: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      400: components['responses']['AuthCallback400'];
      403: components['responses']['AuthCallback403'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['AuthCallback502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  AuthSignOut: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Signed out */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['OriginMismatch'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetMe: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Who is signed in */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Me'];
        };
      };
      401: components['responses']['Unauthenticated'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostTenantSlug: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          slug: string;
        };
      };
    };
    responses: {
      /** @description Locked */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            slug: string;
            /** @description `<slug>.<stack_domain>` */
            stackName: string;
            /**
             * @description Present when this call started a new account (a returning customer).
             * @constant
             */
            newAccount?: true;
          };
        };
      };
      400: components['responses']['PostTenantSlug400'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['PostTenantSlug403'];
      409: components['responses']['PostTenantSlug409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetBillingPlans: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The catalog */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PlanCatalog'];
        };
      };
      401: components['responses']['Unauthenticated'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetBillingStatus: {
    parameters: {
      query?: {
        /** @description The slug of one of your former accounts (GET /v1/me `formerAccounts`), to read its billing; left out: your current account. */
        account?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The billing status */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** @enum {string} */
            billingState: 'provisioning' | 'active' | 'past-due' | 'suspended' | 'decommissioning';
            graceDeadline: string | null;
            history: {
              /** Format: date-time */
              at: string;
              from: string;
              to: string;
              /** @description checkout_completed, payment_failed, past_due_grace_elapsed, suspended_grace_elapsed, payment_recovered, cancelled_in_portal, cancelled_by_operator, cancelled_after_failed_payments, cancelled_payment_disputed, refund_granted, closed_by_tenant */
              reason: string;
            }[];
            /** @description Present only while decommissioning: why, when the Stacks are torn down, and what the tenant may still do. */
            closing?: {
              reason: string | null;
              /** @description After a portal cancel, the end of the paid period (the Stacks serve until then); otherwise the end of the export window. */
              teardownAt: string | null;
              stacksServeUntilTeardown: boolean;
              /** @description The processor confirmed nothing more will be billed. */
              billingStopped: boolean;
              tornDown: boolean;
              youCanStill: string;
            };
            /** @description The money-back refund: where to write (with the account's address and the slug), until when, whether it can still be asked for, the grant once made, and the reminder to export first. */
            moneyBack: {
              supportEmail: string;
              /** @description 14 × 24 hours after the payment of the first invoice above zero (null until the sweep has seen one) */
              windowEndsAt: string | null;
              /** @description Only an active account, within the window, that has not used it (nor has the person with an earlier account). */
              available: boolean;
              used: {
                /** Format: date-time */
                requestedAt: string;
                /** Format: date-time */
                grantedAt: string;
                /** @description Minor units */
                refundedAmount: number;
                refunds: number;
                currency: string;
              } | null;
              reminder: string;
              /** @description The refund was used with the person's earlier account (it is once per person): with which (slug) and when. */
              usedByEarlierAccount: {
                slug: string | null;
                /** Format: date-time */
                grantedAt: string;
              } | null;
            };
            /** @description The Founding Price Lock: whether the tenant is founding (its first subscription completed before Open Signup), how many Stacks keep their locked price now, and the locks that ended. Stacks show theirs in GET /v1/stacks. */
            priceLock: {
              founding: boolean;
              lockedStacks: number;
              ended: {
                stackId: string;
                plan: string;
                endedAt: string | null;
                /** @enum {string} */
                reason: 'plan_change_confirmed' | 'subscription_cancelled';
              }[];
            };
          };
        };
      };
      401: components['responses']['Unauthenticated'];
      404: components['responses']['GetBillingStatus404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetBillingSummary: {
    parameters: {
      query?: {
        /** @description The slug of one of your former accounts (GET /v1/me `formerAccounts`), to read its billing; left out: your current account. */
        account?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description What the tenant pays */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            paymentMethod: {
              brand: string;
              last4: string;
              expMonth: number;
              expYear: number;
            } | null;
            currentInvoice: components['schemas']['Invoice'] | null;
            nextInvoice: components['schemas']['UpcomingInvoice'] | null;
          };
        };
      };
      401: components['responses']['Unauthenticated'];
      404: components['responses']['GetBillingStatus404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['GetBillingSummary502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetBillingInvoices: {
    parameters: {
      query?: {
        /** @description Invoices per page, 1 to 25 (default 10) */
        limit?: number;
        /** @description The `next` of the page before, as given */
        cursor?: string;
        /** @description The slug of one of your former accounts (GET /v1/me `formerAccounts`), to read its billing; left out: your current account. */
        account?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of invoices */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            invoices: components['schemas']['Invoice'][];
            /** @description The cursor of the next page; null: this is the last. */
            next: string | null;
          };
        };
      };
      400: components['responses']['GetBillingInvoices400'];
      401: components['responses']['Unauthenticated'];
      404: components['responses']['GetBillingStatus404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['GetBillingSummary502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetBillingInvoiceDocument: {
    parameters: {
      query?: {
        /** @description The slug of one of your former accounts (GET /v1/me `formerAccounts`) whose invoice this is: a former account's invoice links carry it; left out: your current account. */
        account?: string;
      };
      header?: never;
      path: {
        /** @description The invoice's `ref`, as given */
        invoiceRef: string;
        /** @description `view`: the processor's page of the invoice; `pdf`: its PDF */
        document: 'view' | 'pdf';
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description To the processor's page or PDF of the invoice (`Location`) */
      303: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      401: components['responses']['Unauthenticated'];
      404: components['responses']['GetBillingInvoiceDocument404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['GetBillingSummary502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostBillingCheckout: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /**
           * @default standard
           * @enum {string}
           */
          plan?: 'standard' | 'plus' | 'pro';
        };
      };
    };
    responses: {
      /** @description The hosted page's address */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uri */
            url: string;
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      409: components['responses']['PostBillingCheckout409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['PostBillingCheckout502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostBillingWaitlist: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          plan: 'standard' | 'plus' | 'pro';
        };
      };
    };
    responses: {
      /** @description Already on the waitlist (the same entry) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WaitlistEntry'];
        };
      };
      /** @description Joined */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WaitlistEntry'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      409: components['responses']['PostBillingWaitlist409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostBillingPortal: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The hosted page's address */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: uri */
            url: string;
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      409: components['responses']['PostBillingPortal409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['PostBillingPortal502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostTenantClose: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The close is recorded; the account is decommissioning within a minute */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            /** Format: date-time */
            closeRequestedAt: string;
            message: string;
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      409: components['responses']['PostTenantClose409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['PostBillingPortal502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetStacks: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Stacks */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            stacks?: components['schemas']['Stack'][];
          };
        };
      };
      401: components['responses']['Unauthenticated'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostStacks: {
    parameters: {
      query?: never;
      header?: {
        /** @description A retry with the same key creates one Stack and one item change, and answers the first result; the same key with another body is 409 idempotency_key_reused. While the first request may still be running (up to the API function's timeout, 10 s after it claimed the key), 409 request_in_progress; a request that died is taken over after that time, carrying on with the Stack it had chosen. */
        'Idempotency-Key'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          plan: 'standard' | 'plus' | 'pro';
        };
      };
    };
    responses: {
      /** @description The new Stack */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Stack'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      409: components['responses']['PostStacks409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['PostBillingPortal502'];
      503: components['responses']['PostStacks503'];
    };
  };
  PostStacksPreview: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          plan: 'standard' | 'plus' | 'pro';
        };
      };
    };
    responses: {
      /** @description The estimate */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            plan?: string;
            monthlyPrice?: components['schemas']['Money'];
            /** Format: date-time */
            estimatedAt?: string;
            estimate?: components['schemas']['InvoiceEstimate'];
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      409: components['responses']['PostStacksPreview409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['PostStacksPreview502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetStack: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Stack */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Stack'];
        };
      };
      401: components['responses']['Unauthenticated'];
      404: components['responses']['GetStack404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostStackDispatcherCredential: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The new credential */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            credentialId: string;
            credential: string;
            /** Format: date-time */
            issuedAt: string;
            previousCredentialValidUntil: string | null;
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['GetStack404'];
      409: components['responses']['PostStackDispatcherCredential409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetStackProjects: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Projects */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            watchedProjectsCap?: number;
            projects?: components['schemas']['Project'][];
          };
        };
      };
      401: components['responses']['Unauthenticated'];
      404: components['responses']['GetStack404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostStackProject: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string;
          /** @description owner/name on the code host */
          repository: string;
        };
      };
    };
    responses: {
      /** @description The Project */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Project'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['GetStack404'];
      409: components['responses']['PostStackProject409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  DeleteStackProject: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
        projectId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Removed */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['DeleteStackProject404'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostPlanChangePreview: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          plan: 'standard' | 'plus' | 'pro';
        };
      };
    };
    responses: {
      /** @description The preview */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            stackId?: string;
            current?: {
              plan?: string;
              monthlyPrice?: components['schemas']['Money'];
              resources?: {
                [key: string]: unknown;
              };
              quotas?: {
                [key: string]: unknown;
              };
            };
            requested?: {
              plan?: string;
              monthlyPrice?: components['schemas']['Money'];
              resources?: {
                [key: string]: unknown;
              };
              quotas?: {
                [key: string]: unknown;
              };
              /**
               * @description Where the requested Plan can be placed now: in the Stack's location (the change starts at once), elsewhere in the Home Region, or nowhere (the change would queue).
               * @enum {string}
               */
              capacity?: 'placeable_in_location' | 'placeable_elsewhere_in_home_region' | 'would_queue';
            };
            /** @description null when there is nothing to estimate (no subscription yet, or the same Plan) or the processor could not estimate (`estimateUnavailable` says so) */
            estimate?: components['schemas']['InvoiceEstimate'] | null;
            estimateUnavailable?: string | null;
            billingCycleDate?: string | null;
            /** @description Every refusal a confirmation would meet now, in the order the confirmation checks them (it answers the first); empty when it would be accepted */
            refusals?: {
              /** @enum {string} */
              code:
                | 'account_closing'
                | 'billing_overdue'
                | 'cancellation_scheduled'
                | 'subscription_not_active'
                | 'stack_not_running'
                | 'plan_unchanged'
                | 'operation_in_progress';
              /** @description What to do about it (the message the confirmation would answer) */
              message: string;
              /** @description For developers: the API call that fixes it, kept out of `message` (as in an error's `apiHint`) */
              apiHint?: string;
            }[];
            /** @description What the tenant should know before confirming: more watched Projects than the new cap allows, and, when the Stack keeps the Founding Price Lock, that confirming ends it for good */
            warnings?: string[];
            /** @description The Stack's Founding Price Lock; while it holds, `current.monthlyPrice` is the locked price */
            priceLock?: components['schemas']['PriceLock'] | null;
            /** Format: date-time */
            estimatedAt?: string;
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['PostPlanChangePreview404'];
      409: components['responses']['PostPlanChangePreview409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['PostBillingPortal502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostPlanChange: {
    parameters: {
      query?: never;
      header?: {
        /** @description 1 to 255 visible ASCII characters (400 `invalid_idempotency_key` otherwise). A retry with the same key and the same body confirms once: it answers 202 with the record as it was first answered, and makes sure the change's workflow runs. The same key with another Stack or Plan is 409 `idempotency_key_reused`; while the first request may still be running (up to the API function's timeout, 10 s after it claimed the key), 409 `request_in_progress`; a request that died without recording the change is taken over after that time. A request refused with nothing recorded leaves the key free to use again. */
        'Idempotency-Key'?: string;
      };
      path: {
        stackId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          plan: 'standard' | 'plus' | 'pro';
        };
      };
    };
    responses: {
      /** @description Confirmed: the change runs (`waiting_for_work`) or waits for capacity (`waiting_for_capacity`); follow it with GET /v1/plan-changes/{changeId} */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PlanChange'];
        };
      };
      400: components['responses']['PostPlanChange400'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['GetStack404'];
      409: components['responses']['PostPlanChange409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['PostPlanChange502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostPlanChangeCancel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The change id (`pc_` and lowercase letters and digits) */
        changeId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Cancelled: the record, now `cancelled` */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PlanChange'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['PostPlanChangeCancel404'];
      409: components['responses']['PostPlanChangeCancel409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetPlanChanges: {
    parameters: {
      query?: {
        /** @description Only this Stack's changes (a Stack of another tenant, or none: 404); empty means all */
        stackId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Plan Changes */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            planChanges: components['schemas']['PlanChange'][];
          };
        };
      };
      401: components['responses']['Unauthenticated'];
      404: components['responses']['GetPlanChanges404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetPlanChange: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The change id (`pc_` and lowercase letters and digits) */
        changeId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Plan Change */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['PlanChange'];
        };
      };
      401: components['responses']['Unauthenticated'];
      404: components['responses']['PostPlanChangeCancel404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetPlanChangesExport: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The export: each line one object of the schema below, ended by a newline */
      200: {
        headers: {
          'Content-Disposition'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/x-ndjson': components['schemas']['PlanChangeExportLine'];
        };
      };
      401: components['responses']['Unauthenticated'];
      403: components['responses']['AdminRequired'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostCredential: {
    parameters: {
      query?: {
        /** @description The Stack the request acts on; without it (or empty), the tenant's first Stack (`primary`). A Stack of another tenant, or none: 404 `stack_not_found` */
        stackId?: string;
      };
      header?: never;
      path: {
        /** @description The Credential's name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter or a digit */
        name: string;
      };
      cookie?: never;
    };
    /** @description At most 36864 bytes (`x-max-body-bytes`): the longest `material`, JSON-escaped (a quote, a backslash or a line break takes two characters), and 4 KB for the other fields. Send other characters as they are (UTF-8), not as `\u` escapes. */
    requestBody: {
      content: {
        'application/json': {
          /** @enum {string} */
          provider: 'provider-a' | 'provider-b' | 'provider-c';
          /** @enum {string} */
          kind: 'oauth_token' | 'auth_file' | 'api_key' | 'ambient';
          /** @description The secret: the token or key, or the auth file's JSON text (a JSON object with at least one field, at most 16384 bytes in UTF-8). At most 16384 characters whatever the kind (longer: 400 `invalid_field`, field `material`); a token or key is far shorter, and an auth file of 16384 bytes has at most that many characters. Required for every kind but `ambient`, which takes none. */
          material?: string;
          /** @description The administrator consents to spending the personal subscription: exactly for `oauth_token`, `auth_file` and `ambient` */
          consent?: {
            /** @description The version of the consent text shown: the current one, as GET /v1/credentials/catalog gives it (such as 2026-11) */
            textVersion: string;
          };
          /** @description Left out on a rotation: the current profile stays */
          runtimeProfile?: {
            intake?: {
              model?: string;
              /** @enum {string} */
              effort?: 'low' | 'medium' | 'high';
            };
            dispatch?: {
              model?: string;
              /** @enum {string} */
              effort?: 'low' | 'medium' | 'high';
            };
            guide?: {
              model?: string;
              /** @enum {string} */
              effort?: 'low' | 'medium' | 'high';
            };
          };
        };
      };
    };
    responses: {
      /** @description Rotated */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Credential'];
        };
      };
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Credential'];
        };
      };
      400: components['responses']['PostCredential400'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['GetPlanChanges404'];
      409: components['responses']['PostCredential409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  DeleteCredential: {
    parameters: {
      query?: {
        /** @description The Stack the request acts on; without it (or empty), the tenant's first Stack (`primary`). A Stack of another tenant, or none: 404 `stack_not_found` */
        stackId?: string;
        /** @description The token of a `confirmation_required` answer */
        confirmationToken?: string;
      };
      header?: never;
      path: {
        /** @description The Credential's name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter or a digit */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Deleted */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            name: string;
            /** @constant */
            deleted: true;
            /** @description The Threads bound to it, which can no longer go on */
            nonResumableThreads: number;
          };
        };
      };
      400: components['responses']['DeleteCredential400'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['PostCredentialArchive404'];
      409: components['responses']['DeleteCredential409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetCredentials: {
    parameters: {
      query?: {
        /** @description The Stack the request acts on; without it (or empty), the tenant's first Stack (`primary`). A Stack of another tenant, or none: 404 `stack_not_found` */
        stackId?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The Credentials */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CredentialList'];
        };
      };
      401: components['responses']['Unauthenticated'];
      404: components['responses']['GetPlanChanges404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetCredentialCatalog: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The catalog */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CredentialCatalog'];
        };
      };
      401: components['responses']['Unauthenticated'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostCredentialArchive: {
    parameters: {
      query?: {
        /** @description The Stack the request acts on; without it (or empty), the tenant's first Stack (`primary`). A Stack of another tenant, or none: 404 `stack_not_found` */
        stackId?: string;
      };
      header?: never;
      path: {
        /** @description The Credential's name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter or a digit */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Archived */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Credential'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['PostCredentialArchive404'];
      409: components['responses']['PostCredentialArchive409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PutProjectCredentialRoutes: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
        projectId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          intake?: {
            primary: string;
            /** @description Used when the Primary is not usable; must differ from it */
            fallback?: string;
          };
          dispatch?: {
            primary: string;
            /** @description Used when the Primary is not usable; must differ from it */
            fallback?: string;
          };
        };
      };
    };
    responses: {
      /** @description The routes */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            projectId: string;
            stackId: string;
            credentialRoutes: components['schemas']['CredentialRoutes'];
          };
        };
      };
      400: components['responses']['PutProjectCredentialRoutes400'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['PutProjectCredentialRoutes404'];
      409: components['responses']['PutProjectCredentialRoutes409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PutGuideCredential: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          name: string | null;
        };
      };
    };
    responses: {
      /** @description The Guide selection */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['GuideSelection'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['PostCredentialArchive404'];
      409: components['responses']['PutGuideCredential409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetStackExports: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The exports */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ExportList'];
        };
      };
      401: components['responses']['Unauthenticated'];
      404: components['responses']['GetStack404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostStackExport: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The export, requested */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Export'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['GetStack404'];
      409: components['responses']['PostStackExport409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetStackExport: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
        exportId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The export */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Export'];
        };
      };
      401: components['responses']['Unauthenticated'];
      404: components['responses']['GetStackExport404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostStackExportDownload: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        stackId: string;
        exportId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Where to download the archive */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            exportId: string;
            /**
             * Format: uri
             * @description GET it (no session needed) before `expiresAt`
             */
            url: string;
            /** Format: date-time */
            expiresAt: string;
            sizeBytes: number | null;
            /** @description A name to save it under: `<Stack name>-<exportId>.tar` */
            fileName: string;
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['Unauthenticated'];
      403: components['responses']['Forbidden'];
      404: components['responses']['GetStackExport404'];
      409: components['responses']['PostStackExportDownload409'];
      410: components['responses']['PostStackExportDownload410'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetDispatcherDesiredState: {
    parameters: {
      query?: never;
      header?: {
        'If-None-Match'?: string;
      };
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The desired state; ETag = its version; X-Poll-After-Seconds says when to poll next */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            version: number;
            stack: string;
            /** @enum {string} */
            plan: 'standard' | 'plus' | 'pro';
            resources: {
              vcpu: number;
              /** @enum {string} */
              vcpuKind: 'shared';
              memoryGb: number;
              storageGb: number;
            };
            run_cap: number;
            /**
             * @description `open`: take new work; `paused`: take no new work and let active runs finish (a Plan Change runs on the Stack); `closed`: no work at all
             * @enum {string}
             */
            admission: 'open' | 'paused' | 'closed';
            /** @enum {string} */
            lifecycle: 'running' | 'decommissioning' | 'torn_down';
            /**
             * Format: date-time
             * @description Only while decommissioning: when the Stack is torn down
             */
            teardown_at?: string;
            /** @description Only while a Plan Change runs on the Stack (then `admission` is `paused`): the step to carry out and the replacement. A later version with the same `id` and `step` is not a new step. See docs/dispatcher.md. */
            operation?: {
              /** @description The Plan Change's id (pc_…) */
              id: string;
              /** @enum {string} */
              kind: 'plan_change';
              /**
               * @description `drain`: start no new work, let active runs finish (report nothing beyond `appliedVersion` and `activeRuns`); `backup`: the final backup; `switch`: create the replacement at `target.location` with `target.resources` and `target.run_cap`, move the Durable Stack State and the Credentials; `verify`: the replacement shows it is healthy
               * @enum {string}
               */
              step: 'drain' | 'backup' | 'switch' | 'verify';
              target: {
                /** @enum {string} */
                plan: 'standard' | 'plus' | 'pro';
                location: string;
                resources: {
                  vcpu: number;
                  /** @enum {string} */
                  vcpuKind: 'shared';
                  memoryGb: number;
                  storageGb: number;
                };
                run_cap: number;
              };
            };
            /** @description Only while an export of the Stack runs: build the archive (docs/exports.md), upload it in parts (POST /v1/dispatcher/exports/{exportId}/parts) and report the outcome (POST /v1/dispatcher/exports/{exportId}/outcome). Each `id` once. */
            export?: {
              /** @description The export's id (exp_…) */
              id: string;
              /** Format: date-time */
              requestedAt: string;
            };
            /** @description Only when some: the Credentials waiting for validation (pending, not archived), by name. For each, read the material (GET /v1/dispatcher/credentials/{name}), check it with the provider, and report the verdict for that `version` (POST /v1/dispatcher/credentials/{name}/validation). The control plane never calls a provider with a secret. */
            credentials?: {
              name: string;
              /** @description The material's version (it goes up at each provisioning) */
              version: number;
            }[];
            /** @description When to poll next: 10 s while an operation runs, 720 to 1080 s (jittered per Stack) otherwise */
            poll_after_seconds: number;
            /** @description Send the observed state when it changes, and at least this often */
            heartbeat_seconds: number;
          };
        };
      };
      /** @description Unchanged since the ETag sent */
      304: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      401: components['responses']['GetDispatcherDesiredState401'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PutDispatcherObservedState: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          appliedVersion: number;
          /** @enum {string} */
          health: 'healthy' | 'unhealthy' | 'unknown';
          activeRuns: number;
          /**
           * @description The Stack is a Local Stack using the host Executor (only then are `ambient` Credentials accepted); false when left out
           * @default false
           */
          localHostExecutor?: boolean;
          /**
           * @description The teardown is done (while decommissioning, once `teardown_at` has passed). While a Plan Change is past its cancel window (step `backup`, `switch` or `verify`) it is not taken and is stored as false: confirm it again once the change has ended.
           * @default false
           */
          tornDown?: boolean;
          /** @description The outcome of the last Plan Change step the Dispatcher carried out (`drain` has none). Report it with the observed state that applies the step's version, and keep reporting the last one on later polls. Stored as reported whatever its `id`. */
          operation?: {
            /** @description The desired state's `operation.id` (pc_…) */
            id: string;
            /** @enum {string} */
            step: 'backup' | 'switch' | 'verify';
            /** @enum {string} */
            outcome: 'done' | 'failed';
            /** @description Why the step failed, for operators (never shown to tenants) */
            reason?: string;
            /** @description After `switch`: the replacement's public IP address differs from the old one */
            addressChanged?: boolean;
          };
        };
      };
    };
    responses: {
      /** @description Recorded */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            desiredStateVersion?: number;
            /** @description When to poll next: 10 s while an operation runs, 720 to 1080 s (jittered per Stack) otherwise */
            poll_after_seconds?: number;
            /** @description Send the observed state when it changes, and at least this often */
            heartbeat_seconds?: number;
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['GetDispatcherDesiredState401'];
      409: components['responses']['PutDispatcherObservedState409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  GetDispatcherCredential: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The Credential's name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter or a digit */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The material to check */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            name: string;
            /** @enum {string} */
            provider: 'provider-a' | 'provider-b' | 'provider-c';
            /** @enum {string} */
            kind: 'oauth_token' | 'auth_file' | 'api_key' | 'ambient';
            /** @description The material's version: send it back with the verdict */
            version: number;
            inject: components['schemas']['Injection'];
          };
        };
      };
      401: components['responses']['GetDispatcherDesiredState401'];
      404: components['responses']['GetDispatcherCredential404'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostDispatcherCredentialValidation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description The Credential's name: 1 to 63 lowercase letters, digits and hyphens, starting with a letter or a digit */
        name: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description The `version` read with the material */
          version: number;
          /** @enum {string} */
          outcome: 'valid' | 'invalid';
          /** @description Why it is invalid, for operators (never shown to tenants; never the material) */
          reason?: string;
        };
      };
    };
    responses: {
      /** @description Recorded */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            name: string;
            version: number;
            validation: {
              /** @enum {string} */
              state: 'valid' | 'invalid';
              /**
               * @description With `invalid`: what the tenant is told
               * @enum {string}
               */
              reasonCode?: 'provider_refused';
              /** @description With `invalid`: the `reason` sent, as recorded for operators */
              dispatcherReason?: string;
              /** Format: date-time */
              checkedAt: string;
            };
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['GetDispatcherDesiredState401'];
      404: components['responses']['PostDispatcherCredentialValidation404'];
      409: components['responses']['PostDispatcherCredentialValidation409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostDispatcherThread: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          threadId: string;
          projectId: string;
          /** @enum {string} */
          activity: 'intake' | 'dispatch';
          model?: string;
          /** @enum {string} */
          effort?: 'low' | 'medium' | 'high';
        };
      };
    };
    responses: {
      /** @description The Thread, bound */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ThreadBinding'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['GetDispatcherDesiredState401'];
      404: components['responses']['PostDispatcherThread404'];
      409: components['responses']['PostDispatcherThread409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostDispatcherGuideSession: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          threadId: string;
          model?: string;
          /** @enum {string} */
          effort?: 'low' | 'medium' | 'high';
        };
      };
    };
    responses: {
      /** @description The Guide Session's Thread, bound (`activity` and `credential.position`: `guide`) */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ThreadBinding'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['GetDispatcherDesiredState401'];
      409: components['responses']['PostDispatcherGuideSession409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostDispatcherExportParts: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        exportId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          partNumbers: number[];
        };
      };
    };
    responses: {
      /** @description One URL per part number */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            exportId: string;
            parts: {
              partNumber: number;
              /** Format: uri */
              url: string;
            }[];
            /** Format: date-time */
            expiresAt: string;
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['GetDispatcherDesiredState401'];
      404: components['responses']['PostDispatcherExportParts404'];
      409: components['responses']['PostDispatcherExportParts409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostDispatcherExportOutcome: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        exportId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json':
          | {
              /** @constant */
              outcome: 'ready';
              sizeBytes: number;
              parts: {
                partNumber: number;
                etag: string;
              }[];
            }
          | {
              /** @constant */
              outcome: 'failed';
              /** @description Why the archive could not be built, for operators (never shown to tenants: they see `failureCode` `build_failed`) */
              reason: string;
            };
      };
    };
    responses: {
      /** @description The export as the tenant sees it */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Export'];
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['GetDispatcherDesiredState401'];
      404: components['responses']['PostDispatcherExportOutcome404'];
      409: components['responses']['PostDispatcherExportOutcome409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostDispatcherBlockingVerdict: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          issue: {
            repository: string;
            number: number;
          };
          /** @default [] */
          nativeDependencies?: {
            repository: string;
            number: number;
            /** @enum {string} */
            state: 'open' | 'closed';
          }[];
          /** @default [] */
          relationshipEdges?: {
            repository: string;
            number: number;
            /** @enum {string} */
            state: 'open' | 'closed';
          }[];
          /** @default  */
          body?: string;
          /** @default {} */
          states?: {
            [key: string]: 'open' | 'closed';
          };
        };
      };
    };
    responses: {
      /** @description The verdict */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            blocked?: boolean;
            openBlockers?: {
              [key: string]: unknown;
            }[];
          };
        };
      };
      400: components['responses']['BadRequest'];
      401: components['responses']['GetDispatcherDesiredState401'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  PostOpsRefund: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          slug: string;
          /** @description The address the tenant wrote to support from */
          email: string;
          /** @description When support received the email (default: now) */
          requestedAt?: string;
        };
      };
    };
    responses: {
      /** @description Granted: what was refunded (minor units), and the window */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            tenantId: string;
            slug: string;
            /** Format: date-time */
            requestedAt: string;
            /** Format: date-time */
            grantedAt: string;
            refundedAmount: number;
            refunds: number;
            currency: string;
            window: {
              /** Format: date-time */
              from: string;
              /** Format: date-time */
              until: string;
            };
            /** @description This request finished a grant an earlier one had started */
            continued: boolean;
          };
        };
      };
      400: components['responses']['PostOpsRefund400'];
      403: components['responses']['PostOpsRefund403'];
      404: components['responses']['PostOpsRefund404'];
      409: components['responses']['PostOpsRefund409'];
      413: components['responses']['PayloadTooLarge'];
      415: components['responses']['UnsupportedMediaType'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      502: components['responses']['PostOpsRefund502'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
  ProcessorWebhook: {
    parameters: {
      query?: never;
      header: {
        'Stripe-Signature': string;
      };
      path?: never;
      cookie?: never;
    };
    /** @description The event exactly as the processor sent it (its signature covers these bytes), at most 524288 bytes (`x-max-body-bytes`): the processor's events stay well below it. */
    requestBody: {
      content: {
        'application/json': Record<string, never>;
      };
    };
    responses: {
      /** @description Verified and queued */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            received?: boolean;
          };
        };
      };
      400: components['responses']['ProcessorWebhook400'];
      413: components['responses']['PayloadTooLarge'];
      429: components['responses']['Throttled'];
      500: components['responses']['InternalError'];
      503: components['responses']['TemporarilyBusy'];
    };
  };
}
