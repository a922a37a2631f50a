/**
 * Debian's Chromium for the browser tests (test/browser/), driven by playwright-core, headless,
 * with the flags a CI container without a GPU, a sandbox or a network needs.
 */
import { mkdirSync } from 'node:fs';
import {
  type Browser,
  type BrowserContext,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

export interface Viewport {
  width: number;
  height: number;
}

export interface OpenOptions {
  /** Basic credentials the context answers the gateway's challenge with. */
  credentials?: { username: string; password: string };
  /** Where the page's problems are collected: console errors and warnings, page errors. */
  problems: string[];
  /** A request to anywhere else is a problem too (the pages load nothing from outside). */
  origin?: string;
  /** A console error of a response with this status is expected (a refusal the test asks for). */
  expectedStatus?: number;
  /** Also the clipboard (copy buttons), granted for `origin`. */
  clipboard?: boolean;
  /** Confirmation dialogs are accepted. */
  acceptDialogs?: boolean;
  javaScriptEnabled?: boolean;
}

/**
 * A page in a fresh context at `viewport`, in pt-BR, as a phone (touch, mobile) below 500 px;
 * what goes wrong on it is pushed to `options.problems`, which a test expects to stay empty.
 */
export async function openPage(
  browser: Browser,
  viewport: Viewport,
  options: OpenOptions,
): Promise<{ context: BrowserContext; page: Page }> {
  const { problems, origin, expectedStatus } = options;
  const context = await browser.newContext({
    ...(options.credentials && { httpCredentials: options.credentials }),
    viewport,
    locale: 'pt-BR',
    ...(viewport.width < 500 && { isMobile: true, hasTouch: true }),
    ...(options.javaScriptEnabled !== undefined && {
      javaScriptEnabled: options.javaScriptEnabled,
    }),
  });
  if (options.clipboard && origin) {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  }
  const page = await context.newPage();
  const expected = `the server responded with a status of ${expectedStatus} `;
  page.on('console', (message) => {
    if (expectedStatus && message.text().includes(expected)) return;
    if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(String(error)));
  if (origin) {
    page.on('request', (request) => {
      if (!request.url().startsWith(origin)) problems.push(`outside request: ${request.url()}`);
    });
  }
  if (options.acceptDialogs) page.on('dialog', (dialog) => dialog.accept());
  return { context, page };
}

const ARTIFACTS = new URL('../artifacts/', import.meta.url);

/** Saves a screenshot of `target` as test/artifacts/`name` (for people to look at). */
export function screenshot(target: Page | Locator, name: string, fullPage = true): Promise<Buffer> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = new URL(name, ARTIFACTS).pathname;
  return 'goto' in target ? target.screenshot({ path, fullPage }) : target.screenshot({ path });
}
