import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signIn } from '../support/browser.js';
import { startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * The portal's script (src/web/portal/live.ts) in a real browser, against a server whose
 * job runner is off: the test decides when the background work ends, and checks that the
 * page shows it in place, without being loaded again.
 */
let svc: TestService;
let w: World;
let browser: Browser;
const BRAND = 'northwind.example';

beforeAll(async () => {
  svc = await startService({ MENTION_STREAM_MS: '200' }, { runJobs: false });
  w = await seedWorld(svc.app);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

/** Marks the loaded document; a page loaded again has lost the mark. */
const mark = (page: Page) =>
  page.evaluate(() => {
    (globalThis as unknown as { loadedOnce: boolean }).loadedOnce = true;
  });
const stillMarked = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { loadedOnce?: boolean }).loadedOnce === true);

describe('live updates in the portal', () => {
  it('shows recent moments relative to now and older ones as dates, in the browser’s zone or the profile’s', async () => {
    const context = await browser.newContext({ timezoneId: 'Asia/Tokyo', locale: 'en-GB' });
    const page = await context.newPage();
    await signIn(page, svc.url);
    // An entry of ten days ago, beside the seed's entries of just now.
    const old = new Date(Date.now() - 10 * 86_400_000).toISOString();
    await svc.app.db
      .insertInto('audit_log')
      .values({
        id: 'aud_old_entry',
        account_id: w.accounts.agency,
        brand_id: null,
        story_id: null,
        actor: 'operator',
        action: 'brand.added',
        details: '{}',
        created_at: old,
      })
      .execute();
    await page.goto(`${svc.url}/app/activity`);
    await page.waitForFunction(
      "![...document.querySelectorAll('time[datetime]')].some((t) => t.textContent.endsWith('UTC'))",
    );
    const recent = page.locator('time[datetime]').first();
    expect(await recent.textContent()).toMatch(/^(now|\d+ (second|minute)s? ago)$/);
    expect(await recent.getAttribute('title')).toMatch(/Japan Standard Time|GMT\+9/);
    const older = page.locator(`time[datetime="${old}"]`);
    const inZone = (timeZone: string) =>
      new Intl.DateTimeFormat('en-GB', {
        dateStyle: 'medium',
        timeStyle: 'short',
        timeZone,
      }).format(new Date(old));
    expect(await older.textContent()).toBe(inZone('Asia/Tokyo'));

    // A zone chosen in the profile wins over the browser's.
    await page.goto(`${svc.url}/app/profile`);
    expect(await page.locator('option[data-browser-zone]').textContent()).toBe(
      'Your browser’s (Asia/Tokyo)'.replace('’', "'"),
    );
    await page.getByLabel('Time zone').selectOption('America/New_York');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Profile saved.').waitFor();
    await page.goto(`${svc.url}/app/activity`);
    await page.waitForFunction(
      "![...document.querySelectorAll('time[datetime]')].some((t) => t.textContent.endsWith('UTC'))",
    );
    expect(await older.textContent()).toBe(inZone('America/New_York'));
    expect(await older.getAttribute('title')).toMatch(/Eastern|GMT-[45]/);
    await page.goto(`${svc.url}/app/profile`);
    await page.getByLabel('Time zone').selectOption('');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Profile saved.').waitFor();
    await context.close();
  });

  it('the Mentions page shows a mention found while it is open, on top, without a reload', async () => {
    const page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 } })
    ).newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await signIn(page, svc.url);
    await page.goto(`${svc.url}/app/mentions?brand=${BRAND}`);
    await mark(page);
    const rows = await page.locator('tbody tr').count();
    const found = Date.now();
    await w.story(BRAND, 41);
    await page.getByText('1 new mention').waitFor({ timeout: 3000 });
    // Within three seconds of being found, on top of the list, its time shown as the
    // others are, in the same document.
    expect(Date.now() - found).toBeLessThan(3000);
    expect(await page.locator('tbody tr').count()).toBe(rows + 1);
    expect(await page.locator('tbody tr').first().getAttribute('class')).toBe('new');
    expect(await page.locator('tbody tr').first().locator('time').textContent()).toMatch(
      /now|second|minute/,
    );
    expect(await stillMarked(page)).toBe(true);
    expect(errors).toEqual([]);
    await page.context().close();
  });

  it('a proposal being prepared is replaced in place by its ready card, whose forms work', async () => {
    const event = await w.story(BRAND, 40);
    const unlocked = await svc.request('POST', '/v1/advisory', {
      key: w.keys.owner,
      body: { brand: BRAND, event_uri: event },
    });
    expect(unlocked.status).toBe(200);

    const page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 } })
    ).newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await signIn(page, svc.url);
    await page.goto(`${svc.url}/app/stories/${BRAND}/${encodeURIComponent(event)}`);
    await page.getByLabel('Add what the coverage does not say').fill('The recall ended on Monday.');
    await page.getByRole('button', { name: 'Add context' }).click();
    await page
      .getByText('A proposed update of the advisory is being prepared')
      .waitFor({ timeout: 10_000 });
    await mark(page);

    await svc.app.jobs.drain();
    await page
      .getByRole('heading', { name: 'Proposed update of the advisory' })
      .waitFor({ timeout: 10_000 });
    expect(await stillMarked(page)).toBe(true);
    expect(errors).toEqual([]);

    // The card's form was rendered for this session: dismissing it works.
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await page.getByLabel('Add what the coverage does not say').waitFor({ timeout: 10_000 });
  });
});
