import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Page } from 'playwright-core';

/** Debian's Chromium, headless, as every browser test drives it (playwright-core). */
export const launchChromium = () =>
  chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });

/** Signs in on the sign-in page (the seed world's agency owner unless told), and waits for the portal. */
export async function signIn(
  page: Page,
  base: string,
  email = 'owner@northwind.example',
  password = 'correct horse battery',
) {
  await page.goto(`${base}/signin`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/app/);
}

/**
 * Where the browser tests put their screenshots: docs/screenshots/ (which docs/portal.md
 * shows) only when asked, `npm run screenshots`; otherwise a temporary folder, so a test
 * run never rewrites tracked files.
 */
export const SHOTS =
  process.env.SCREENSHOTS === '1'
    ? new URL('../../docs/screenshots/', import.meta.url)
    : pathToFileURL(`${mkdtempSync(join(tmpdir(), 'brs-shots-'))}/`);
mkdirSync(SHOTS, { recursive: true });
