// The API reference (/docs): Scalar's bundled page over our own document, nothing fetched from
// elsewhere (no default fonts, no proxy, no hosted client).
/* global Scalar */
Scalar.createApiReference('#reference', {
  url: '/docs/openapi.json',
  withDefaultFonts: false,
  hideClientButton: true,
  hideDarkModeToggle: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  telemetry: false,
  documentDownloadType: 'json',
});

// Scalar's copy buttons (on every code block) are icons without a name: a screen reader would
// announce only "button". Each gets one as Scalar draws it (operations are drawn as they scroll in).
const COPY_BUTTONS = 'button[class*="copy-button"]:not([aria-label])';
const nameCopyButtons = (root) => {
  for (const button of root.querySelectorAll(COPY_BUTTONS))
    button.setAttribute('aria-label', 'Copy to the clipboard');
};
let pending = false;
new MutationObserver(() => {
  if (pending) return;
  pending = true;
  queueMicrotask(() => {
    pending = false;
    nameCopyButtons(document);
  });
}).observe(document.body, { childList: true, subtree: true });
nameCopyButtons(document);
