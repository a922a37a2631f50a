/**
 * The tracking parameters apps and ad platforms add to a link when it is shared or clicked
 * (WhatsApp and Instagram pass links through Meta, which adds `fbclid`; campaign tools add
 * `utm_source`...). They say nothing to the report: every report route drops them before reading
 * its own parameters (serve.ts), so a shared link opens the same page as the original, and they
 * take no part in the ETag either. Names match case-insensitively. Pure.
 *
 * The list (docs/report.md repeats it): every name starting with `utm_` (Google Analytics'
 * campaign parameters: utm_source, utm_medium, utm_campaign, utm_term, utm_content, utm_id...),
 * and the click and share identifiers below, by who adds them.
 */

/** Names that start with one of these are tracking parameters. */
export const TRACKING_PREFIXES = ['utm_'] as const;

/** Tracking parameters by exact name (lower case), with who adds them. */
export const TRACKING_PARAMS: Readonly<Record<string, string>> = {
  fbclid: 'Meta (Facebook, Instagram, WhatsApp links)',
  igshid: 'Instagram share',
  igsh: 'Instagram share',
  gclid: 'Google Ads',
  gclsrc: 'Google Ads',
  dclid: 'Google Display',
  gbraid: 'Google Ads (iOS)',
  wbraid: 'Google Ads (iOS)',
  gad_source: 'Google Ads',
  gad_campaignid: 'Google Ads',
  srsltid: 'Google Merchant Center',
  _ga: 'Google Analytics linker',
  _gl: 'Google Analytics linker',
  msclkid: 'Microsoft Ads',
  ttclid: 'TikTok',
  twclid: 'X (Twitter)',
  li_fat_id: 'LinkedIn',
  epik: 'Pinterest',
  sccid: 'Snapchat',
  rdt_cid: 'Reddit',
  yclid: 'Yandex',
  ysclid: 'Yandex',
  mc_cid: 'Mailchimp',
  mc_eid: 'Mailchimp',
  _hsenc: 'HubSpot',
  _hsmi: 'HubSpot',
  mkt_tok: 'Marketo',
  s_cid: 'Adobe Analytics',
};

/** Whether a query parameter's name is a tracking parameter (see the module comment). */
export function isTrackingParam(name: string): boolean {
  const lower = name.toLowerCase();
  return (
    Object.hasOwn(TRACKING_PARAMS, lower) ||
    TRACKING_PREFIXES.some((prefix) => lower.startsWith(prefix))
  );
}

/** The query without its tracking parameters (the same object when it has none). */
export function withoutTracking(
  query: Readonly<Record<string, readonly string[]>>,
): Readonly<Record<string, readonly string[]>> {
  const names = Object.keys(query);
  if (!names.some(isTrackingParam)) return query;
  return Object.fromEntries(Object.entries(query).filter(([name]) => !isTrackingParam(name)));
}
