import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addUser, createAccount } from '../../src/domain/accounts.js';
import { createKey } from '../../src/domain/api-key-admin.js';
import { addBrand } from '../../src/domain/brands.js';
import { grantDelegation } from '../../src/domain/delegations.js';
import { listOutbox } from '../../src/email/outbox.js';
import { launchChromium, SHOTS } from '../support/browser.js';
import { startService, type TestService } from '../support/harness.js';

/**
 * End-to-end journeys in a real browser (Debian's Chromium driven by playwright-core)
 * against a real server. Screenshots of the main pages go to docs/screenshots/, which
 * docs/portal.md shows.
 */
let svc: TestService;
let site: http.Server;
let siteBase: string;
let browser: Browser;

const ARTICLE = `<!doctype html><html lang="en"><head><title>Acme recalls kettles</title>
<meta property="og:site_name" content="Daily Ledger">
<meta property="article:published_time" content="2026-11-20T08:00:00Z"></head>
<body><article><h1>Acme recalls 40,000 kettles over a fire risk</h1>
<p>Acme is recalling 40,000 kettles sold in Europe after reports that the base overheats and can start a fire while boiling water.</p>
<p>The recall covers every kettle made between March and September, the company said, and owners should stop using them at once.</p>
<p>Acme will refund every owner in full and has opened a hotline; the product-safety regulator is reviewing the reports.</p>
</article></body></html>`;

beforeAll(async () => {
  site = http.createServer((req, res) => {
    if (req.url === '/news/acme-kettles') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
    } else if (req.url === '/news/slow-and-gone') {
      // Long enough for the job's page to load while the job still runs.
      setTimeout(() => res.writeHead(404).end(), 2500);
    } else res.writeHead(404).end();
  });
  site.listen(0, '127.0.0.1');
  await once(site, 'listening');
  siteBase = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  svc = await startService(
    { FETCH_ALLOW_HOSTS: new URL(siteBase).host, JOB_POLL_MS: '50' },
    { runJobs: true },
  );
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  site?.close();
  await svc?.close();
});

/** playwright-core has no test assertions: wait for the element, then check with Vitest. */
const visible = (l: Locator) => l.first().waitFor({ state: 'visible', timeout: 10_000 });
async function hasText(l: Locator, text: string) {
  await visible(l);
  expect((await l.first().textContent())?.trim()).toBe(text);
}

const shot = (page: Page, name: string) =>
  page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname, fullPage: true });

/** The newest link to `path` in an email to `to`, waiting for the email to be written. */
async function mailedLink(to: string, path: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const mail = (await listOutbox(svc.app, 100)).find(
      (m) => m.to === to && m.text.includes(`${svc.url}${path}`),
    );
    const m = mail && new RegExp(`${svc.url}${path}[^\\s]+`).exec(mail.text);
    if (m) return m[0];
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${path} link mailed to ${to}`);
}

describe('portal journeys in a browser', () => {
  it('sign up → add a brand → import a story → unlock → assign → the assignee marks done → closed; a scoped key works for its brand only', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();

    // Sign up, then confirm from the emailed link.
    await page.goto(`${svc.url}/signup`);
    await shot(page, 'sign-up');
    await page.getByLabel('Team name').fill('Acme Comms');
    await page.getByLabel('Work email').fill('owner@acme.example');
    await page.getByLabel('Plan').selectOption('partner');
    await page.getByRole('button', { name: 'Create the team' }).click();
    await visible(page.getByRole('heading', { name: 'Check your email' }));
    await page.goto(await mailedLink('owner@acme.example', '/signup/confirm/'));
    await page.getByLabel(/Password/).fill('a long enough password');
    await page.getByRole('button', { name: 'Create the team' }).click();
    await visible(page.getByRole('heading', { name: 'Brands' }));

    // Two brands: the story's, and one the scoped key must not reach.
    for (const [host, name] of [
      ['acme.example', 'Acme'],
      ['other.example', 'Other'],
    ]) {
      await page.getByLabel('Host').fill(host!);
      await page.getByLabel('Name', { exact: true }).fill(name!);
      await page.getByRole('button', { name: 'Add brand' }).click();
      await hasText(page.getByRole('status'), 'Brand added.');
    }
    await page.getByLabel('Add an RSS or Atom feed').first().fill(`${siteBase}/feed.xml`);
    await page.getByRole('button', { name: 'Add feed' }).first().click();
    await shot(page, 'brands');

    // Import a story from its URL; the job runs in the background, and its page follows
    // it. A page that cannot be read: the job's page says why, in place, with no reload.
    const stories = () =>
      page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Stories' });
    const addFromUrl = async (url: string) => {
      await page.getByLabel('Brand', { exact: true }).last().selectOption('acme.example');
      await page.getByLabel('Article URL').fill(url);
      await page.getByRole('button', { name: 'Add', exact: true }).click();
    };
    await stories().click();
    await addFromUrl(`${siteBase}/news/slow-and-gone`);
    await visible(page.getByRole('heading', { name: 'Adding a story from an article' }));
    await visible(page.getByText(/Waiting for its turn|Reading the article/));
    await page.evaluate(() => {
      (globalThis as unknown as { loadedOnce: boolean }).loadedOnce = true;
    });
    await hasText(
      page.getByRole('alert'),
      'No story was made from this article: the page answered HTTP 404.',
    );
    await shot(page, 'story-from-url-failed');
    expect(
      await page.evaluate(() => (globalThis as unknown as { loadedOnce?: boolean }).loadedOnce),
    ).toBe(true);
    // A page that works: the job's page opens the story once it is made.
    await stories().click();
    await addFromUrl(`${siteBase}/news/acme-kettles`);
    await visible(
      page.getByRole('heading', { name: 'Acme recalls 40,000 kettles over a fire risk' }),
    );
    await stories().click();
    const storyLink = page.getByRole('link', {
      name: 'Acme recalls 40,000 kettles over a fire risk',
    });
    // The list searches: words of the story find it.
    await page.getByLabel('Search', { exact: true }).fill('kettles FIRE');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await visible(storyLink);
    await shot(page, 'stories');
    await storyLink.click();

    // The unlock says what it costs before anything happens.
    await visible(page.getByText('Unlocking uses 1 of the'));
    await shot(page, 'story-locked');
    await page.getByRole('button', { name: 'Unlock with an included unit' }).click();
    await page.screenshot({ path: '/tmp/unlock.png', fullPage: true });
    await hasText(page.getByRole('status'), 'The advisory is unlocked.');
    await visible(page.getByRole('heading', { name: 'Response plan' }));

    // Every phase goes to a teammate, invited by the assignment itself.
    const phases = await page.locator('summary', { hasText: /^Assign phase \d+$/ }).count();
    expect(phases).toBeGreaterThanOrEqual(3);
    for (let p = 1; p <= phases; p++) {
      // Each phase's form folds under its summary; the teammate box searches the team.
      const box = page.locator('details.act', {
        has: page.locator('summary', { hasText: new RegExp(`^Assign phase ${p}$`) }),
      });
      await box.locator('summary').click();
      await box.getByLabel('Teammate').fill('teammate@acme.example');
      await box.getByRole('button', { name: 'Assign' }).click();
      await hasText(page.getByRole('status'), 'Assigned.');
    }
    await shot(page, 'story');
    // The home page says what moved and what is open.
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Overview' })
      .click();
    await visible(page.getByRole('heading', { name: 'Overview', level: 1 }));
    await visible(page.getByRole('img', { name: /^Mentions per day from / }));
    await shot(page, 'overview');
    await page.goBack();

    // The assignee follows each emailed link, in a browser of their own, and marks it done.
    const assignee = await browser.newContext();
    const mails = (await listOutbox(svc.app, 100)).filter((m) => m.to === 'teammate@acme.example');
    const links = [
      ...new Set(
        mails.flatMap((m) => m.text.match(new RegExp(`${svc.url}/action/[^\\s]+`, 'g')) ?? []),
      ),
    ];
    expect(links.length).toBe(phases);
    for (const link of links) {
      const tab = await assignee.newPage();
      await tab.goto(link);
      await tab.getByRole('button', { name: 'Mark done' }).click();
      await hasText(tab.getByRole('status'), 'Marked done. Thank you.');
      await tab.close();
    }
    await page.reload();
    await visible(page.locator('dd > span.status', { hasText: /^closed$/ }));

    // An admin's scoped key works over REST for its brand, and for no other.
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('CRM');
    await page.getByLabel('Role').selectOption('admin');
    await page.getByLabel('Only these brands:').check();
    await page.getByLabel('Acme (acme.example)').check();
    await page.getByRole('button', { name: 'Create the key' }).click();
    const key = await page.locator('code.secret').textContent();
    expect(key).toMatch(/^brs_/);
    await shot(page, 'api-keys');
    const get = (brand: string) =>
      fetch(`${svc.url}/v1/stories?brand=${brand}`, { headers: { 'x-api-key': key! } });
    expect((await get('acme.example')).status).toBe(200);
    expect((await get('other.example')).status).toBe(403);

    await page.getByRole('link', { name: 'Team' }).click();
    await shot(page, 'team');
    await page.getByRole('link', { name: 'Billing' }).click();
    await shot(page, 'billing');
    await page.getByRole('link', { name: 'Activity' }).click();
    await shot(page, 'activity');
    await context.close();
    await assignee.close();
  });

  it('a client revokes a partner, whose key then no longer reaches the brand', async () => {
    const agency = await createAccount(svc.app, 'Northwind Agency', 'agency');
    const client = await createAccount(svc.app, 'Globex', 'pro');
    await addUser(svc.app, {
      accountId: client,
      email: 'owner@globex.example',
      password: 'a long enough password',
      role: 'owner',
    });
    await addBrand(svc.app, {
      accountId: client,
      host: 'globex.example',
      name: 'Globex',
      verified: true,
    });
    await grantDelegation(svc.app, {
      partnerId: agency,
      clientId: client,
      host: 'globex.example',
      actor: 'test',
    });
    const key = (
      await createKey(svc.app, { accountId: agency, role: 'owner', scope: null, actor: 'test' })
    ).key;
    const list = () =>
      fetch(`${svc.url}/v1/stories?brand=globex.example`, { headers: { 'x-api-key': key } });
    expect((await list()).status).toBe(200);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${svc.url}/signin`);
    await shot(page, 'sign-in');
    await page.getByLabel('Email').fill('owner@globex.example');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Partners' }).click();
    await shot(page, 'partners');
    await page.getByRole('button', { name: 'Revoke Northwind Agency' }).click();
    // Asked first, saying what follows; the key still works until it is confirmed.
    await visible(
      page.getByRole('heading', { name: 'Stop Northwind Agency acting on globex.example?' }),
    );
    expect((await list()).status).toBe(200);
    await shot(page, 'partner-revoke-confirm');
    await page.getByRole('button', { name: 'Revoke Northwind Agency' }).click();
    await hasText(page.getByRole('status'), 'The partner no longer acts on that brand.');
    expect((await list()).status).toBe(404);
    await context.close();
  });

  it("an agency sets its brand kit; its client's onboarding wears it, logo loaded without a referrer", async () => {
    const agency = await createAccount(svc.app, 'Contoso Agency', 'agency');
    await addUser(svc.app, {
      accountId: agency,
      email: 'admin@contoso.example',
      password: 'a long enough password',
      role: 'admin',
    });
    const LOGO = 'https://cdn.contoso.example/logo.svg';
    // The logo's host, answered in the browser's network layer: the page's CSP still
    // decides whether the image may be requested at all.
    const logoRequests: Record<string, string>[] = [];
    const serveLogo = (ctx: BrowserContext) =>
      ctx.route(LOGO, (route) => {
        logoRequests.push(route.request().headers());
        return route.fulfill({
          contentType: 'image/svg+xml',
          body: '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40"><rect width="160" height="40" rx="8" fill="#fff"/><circle cx="22" cy="20" r="10" fill="#f59e0b"/><text x="40" y="27" font-family="sans-serif" font-size="18" font-weight="700" fill="#5b21b6">Contoso</text></svg>',
        });
      });
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${svc.url}/signin`);
    await page.getByLabel('Email').fill('admin@contoso.example');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('link', { name: 'Partners' }).click();
    await page.getByLabel('Display name').fill('Contoso Growth');
    await page.getByLabel('Logo URL').fill(LOGO);
    await page.getByLabel('Accent colour').fill('#5b21b6');
    await page.getByRole('button', { name: 'Save the brand kit' }).click();
    await hasText(page.getByRole('status'), 'Brand kit saved: your invitations show it now.');
    await page.getByLabel('Client brand host').fill('fabrikam.example');
    await page.getByLabel('Return URL').fill('https://app.contoso.example/clients');
    await page.getByRole('button', { name: 'Create the invitation link' }).click();
    const link = (await page.getByRole('status').locator('code.secret').textContent())!.trim();

    // The client, in a browser of its own.
    const client = await browser.newContext({ viewport: { width: 1024, height: 760 } });
    await serveLogo(client);
    const onboarding = await client.newPage();
    await onboarding.goto(link);
    await hasText(
      onboarding.getByRole('heading', { level: 1 }),
      'Contoso Growth invites you to connect fabrikam.example',
    );
    expect(await onboarding.title()).toBe('Connect fabrikam.example · Contoso Growth');
    const logo = onboarding.getByRole('img', { name: 'Contoso Growth' });
    await visible(logo);
    expect(
      await logo.evaluate(
        // The test is compiled without the DOM library: the element, as far as it is read.
        (img) => (img as unknown as { naturalWidth: number }).naturalWidth,
      ),
    ).toBe(160);
    expect(logoRequests).toHaveLength(1);
    expect(logoRequests[0]!.referer).toBeUndefined();
    const bar = await onboarding.locator('header.top').evaluate(
      (el) =>
        (
          globalThis as unknown as {
            getComputedStyle(e: unknown): { backgroundColor: string };
          }
        ).getComputedStyle(el).backgroundColor,
    );
    expect(bar).toBe('rgb(91, 33, 182)');
    expect(await onboarding.locator('body').innerText()).toMatch(/powered by Stories\s*$/);
    await shot(onboarding, 'onboarding-white-label');
    await client.close();
    await context.close();
  });
});
