import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, SHOTS, signIn } from '../support/browser.js';
import { freePort, startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * Every page of the portal in a real browser, on a desktop and at a phone's 360 px:
 * axe-core finds no serious or critical violation, and no page is wider than the screen.
 * The pages carry real data: an unlocked story with an assigned phase, a share with a
 * guest, a webhook endpoint whose deliveries fail, a pending client invitation.
 */
/** Phone screenshots for docs/portal.md. */
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
let svc: TestService;
let w: World;
let browser: Browser;
const BRAND = 'northwind.example';
let storyPath: string;
let sharePath: string;
let closedPort: number;

beforeAll(async () => {
  // A port nothing listens on: deliveries to it are refused.
  closedPort = await freePort();
  svc = await startService({ FETCH_ALLOW_HOSTS: `127.0.0.1:${closedPort}` }, { runJobs: true });
  w = await seedWorld(svc.app);
  browser = await launchChromium();
  const event = w.stories.northwind;
  storyPath = `/app/stories/${BRAND}/${encodeURIComponent(event)}`;
  const owner = { key: w.keys.owner };
  const unlocked = await svc.request('POST', '/v1/advisory', {
    ...owner,
    body: { brand: BRAND, event_uri: event },
  });
  expect(unlocked.status).toBe(200);
  const assigned = await svc.request('POST', '/v1/story/phase-assign', {
    ...owner,
    body: { brand: BRAND, event_uri: event, phase: 1, assignee: 'owner@northwind.example' },
  });
  expect(assigned.status).toBe(200);
  const shared = await svc.request('POST', '/v1/shares', {
    ...owner,
    body: { brand: BRAND, event_uri: event, access: 'public', mode: 'briefing' },
  });
  sharePath = new URL(shared.body.url).pathname;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** Serious and critical axe violations of the loaded page, with where they are. */
async function violations(page: Page) {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run: (o: object) => Promise<any> } }).axe;
    const r = await axe.run({ resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact,
      nodes: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')),
    }));
  });
  return found.filter((v: { impact: string }) => v.impact === 'serious' || v.impact === 'critical');
}

/**
 * How much wider than the window the page is, in CSS pixels (0: it fits), with the
 * innermost elements that stick out, to say where.
 */
const overflow = (page: Page): Promise<0 | { wider: number; at: string[] }> =>
  page.evaluate(`(() => {
    const wider = document.documentElement.scrollWidth - window.innerWidth;
    if (wider <= 0) return 0;
    const out = (e) => e.getBoundingClientRect().right > window.innerWidth + 1;
    const at = [...document.querySelectorAll('body *')].filter((e) => out(e) && ![...e.children].some(out));
    return { wider, at: at.slice(0, 4).map((e) => e.outerHTML.slice(0, 120)) };
  })()`);

/** The portal's pages and the public ones, as a person reaches them. */
async function pages(page: Page): Promise<string[]> {
  // A webhook endpoint that refuses connections: the deliveries table has failures to show.
  await page.goto(`${svc.url}/app/webhooks`);
  if (!(await page.content()).includes('/hooks/stories-long-path-name')) {
    await page
      .getByLabel('HTTPS URL')
      .fill(`http://127.0.0.1:${closedPort}/hooks/stories-long-path-name`);
    await page.getByLabel('story.updated').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    // An event for it: the story assigned. Its attempts fail, said in words.
    const assigned = await svc.request('POST', '/v1/story/assign', {
      key: w.keys.owner,
      body: { brand: BRAND, event_uri: w.stories.northwind, assignee: 'owner@northwind.example' },
    });
    expect(assigned.status).toBe(200);
    for (let i = 0; i < 100; i++) {
      await page.goto(`${svc.url}/app/webhooks`);
      if ((await page.content()).includes('the receiver refused the connection')) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await page.content()).toContain('the receiver refused the connection');
  }
  return [
    '/app',
    '/app/stories?q=northwind',
    '/app/mentions',
    '/app/alerts',
    storyPath,
    '/app/brands',
    '/app/brands/verify?brand=unverified.example',
    '/app/team',
    '/app/keys',
    '/app/partners',
    '/app/webhooks',
    '/app/billing',
    '/app/activity',
    '/app/connected-apps',
    '/app/profile',
    // An address with no page: a page saying so, not an API's JSON.
    '/app/no-such-page',
    sharePath,
  ];
}

describe('every page', () => {
  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 360, height: 740 }],
  ] as const) {
    it(`on a ${device}: no serious or critical axe violation, nothing wider than the screen`, async () => {
      const context = await browser.newContext({ viewport, bypassCSP: true });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await signIn(page, svc.url);
      const report: Record<string, unknown> = {};
      for (const path of await pages(page)) {
        await page.goto(`${svc.url}${path}`);
        if (path === sharePath && device === 'desktop') {
          await page.screenshot({
            path: new URL('share-briefing.png', SHOTS).pathname,
            fullPage: true,
          });
        }
        const found = await violations(page);
        const wider = await overflow(page);
        if (found.length > 0 || wider !== 0) report[path] = { found, wider };
      }
      // A question before a destructive action, and the pages before sign-in.
      await page.goto(`${svc.url}/app/keys`);
      await page
        .getByRole('button', { name: /^Revoke/ })
        .first()
        .click();
      await page.waitForURL(/\/app\/keys/);
      const asked = await violations(page);
      const askedWider = await overflow(page);
      if (asked.length > 0 || askedWider !== 0) report.confirmation = { asked, askedWider };
      await context.clearCookies();
      for (const path of ['/signin', '/signup', '/reset']) {
        await page.goto(`${svc.url}${path}`);
        const found = await violations(page);
        const wider = await overflow(page);
        if (found.length > 0 || wider !== 0) report[path] = { found, wider };
      }
      expect(report).toEqual({});
      expect(errors).toEqual([]);
      await context.close();
    }, 120_000);
  }

  it('a skip link is the keyboard’s first stop on every page, and leads past the menu to the content', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, svc.url);
    for (const path of ['/app/stories', '/app/brands']) {
      await page.goto(`${svc.url}${path}`);
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement?.textContent')).toBe(
        'Skip to the content',
      );
      await page.keyboard.press('Enter');
      await page.waitForFunction("document.activeElement?.id === 'main'");
      // The next Tab goes into the page's content, not back through the menu.
      await page.keyboard.press('Tab');
      expect(
        await page.evaluate("document.getElementById('main').contains(document.activeElement)"),
      ).toBe(true);
    }
    await context.close();
  });

  it('a story prints as a briefing: the shared page and the story page without bar, menu or forms', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await signIn(page, svc.url);
    for (const path of [sharePath, storyPath]) {
      await page.goto(`${svc.url}${path}`);
      await page.emulateMedia({ media: 'print' });
      const shown = await page.evaluate(`(() => {
        const visible = (sel) => [...document.querySelectorAll(sel)].some((e) => e.getClientRects().length > 0);
        return {
          bar: visible('header.top'),
          forms: visible('main form, main details.act, main button'),
          title: visible('h1'),
        };
      })()`);
      expect(shown, path).toEqual({ bar: false, forms: false, title: true });
      const pdf = await page.pdf({ format: 'A4' });
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
      await page.emulateMedia({ media: 'screen' });
    }
    await context.close();
  });

  it('the check itself finds what it must', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    await page.setContent(
      '<!doctype html><html lang="en"><title>t</title><main><img src="x.png"><pre style="width:500px">wide</pre></main></html>',
    );
    expect((await violations(page)).map((v: { id: string }) => v.id)).toContain('image-alt');
    expect(await overflow(page)).toMatchObject({ wider: expect.any(Number) });
    await context.close();
  });

  it('on a phone the sections fold behind Menu, and tables read as labelled cards', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
    const page = await context.newPage();
    await signIn(page, svc.url);
    await page.goto(`${svc.url}/app/team`);
    const menu = page.getByRole('button', { name: 'Menu' });
    await menu.waitFor();
    const nav = page.getByRole('navigation', { name: 'Sections' });
    expect(await nav.isVisible()).toBe(false);
    const bar = await page.locator('header.top').boundingBox();
    expect(bar!.height).toBeLessThan(70);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    expect(await nav.isVisible()).toBe(true);
    await page.screenshot({ path: new URL('phone-menu.png', SHOTS).pathname });
    await nav.getByRole('link', { name: 'Activity' }).click();
    await page.waitForURL(/\/app\/activity/);
    const cell = page.locator('main td[data-label="What"]').first();
    const display = await cell.evaluate(
      (td) =>
        (
          globalThis as unknown as { getComputedStyle(e: unknown): { display: string } }
        ).getComputedStyle(td).display,
    );
    expect(display).toBe('block');
    // Every column is there, each named: none is hidden to fit.
    expect(await page.locator('main tbody tr').first().locator('td:visible').count()).toBe(3);
    await page.screenshot({ path: new URL('phone-activity.png', SHOTS).pathname });
    await page.goto(`${svc.url}${storyPath}`);
    await page.screenshot({ path: new URL('phone-story.png', SHOTS).pathname, fullPage: true });
    await context.close();
  });
});
