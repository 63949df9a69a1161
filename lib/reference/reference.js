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
