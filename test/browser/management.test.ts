import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, signIn } from '../support/browser.js';
import { freePort, startService, type TestService } from '../support/harness.js';
import { seedWorld, type World } from '../support/world.js';

/**
 * The management actions as a person does them in Chromium: each destructive one asked
 * first on its own page, then said done; on a desktop, and a story's work on a 390-px phone.
 */
let svc: TestService;
let w: World;
let browser: Browser;
let closedPort: number;
const BRAND = 'northwind.example';

beforeAll(async () => {
  closedPort = await freePort();
  svc = await startService({ FETCH_ALLOW_HOSTS: `127.0.0.1:${closedPort}` }, { runJobs: false });
  w = await seedWorld(svc.app);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
});

const status = async (page: Page) => (await page.getByRole('status').first().textContent())?.trim();

describe('management in a browser', () => {
  it('on a desktop: cancel an invitation, pause, resume and delete a webhook, set a name', async () => {
    const page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 } })
    ).newPage();
    await signIn(page, svc.url);

    await page.goto(`${svc.url}/app/team`);
    await page.getByLabel('Email').fill('newcomer@northwind.example');
    await page.getByRole('button', { name: 'Send invitation' }).click();
    await page
      .getByRole('button', { name: 'Cancel invitation (newcomer@northwind.example)' })
      .click();
    await page
      .getByRole('heading', { name: 'Cancel the invitation of newcomer@northwind.example?' })
      .waitFor();
    await page.getByRole('button', { name: 'Cancel the invitation' }).click();
    expect(await status(page)).toBe('The invitation is cancelled and its seat is free.');
    expect(await page.content()).not.toContain('<td>newcomer@northwind.example</td>');

    await page.goto(`${svc.url}/app/webhooks`);
    const url = `http://127.0.0.1:${closedPort}/hooks`;
    await page.getByLabel('HTTPS URL').fill(url);
    await page.getByLabel('story.created').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByRole('button', { name: `Pause (${url})` }).click();
    expect(await status(page)).toMatch(/^The endpoint is paused/);
    await page.getByRole('button', { name: `Resume (${url})` }).click();
    expect(await status(page)).toMatch(/^The endpoint is active again/);
    await page.getByRole('button', { name: `Delete (${url})` }).click();
    await page.getByRole('button', { name: 'Delete the endpoint' }).click();
    expect(await status(page)).toBe('The endpoint and its delivery log are deleted.');
    expect(await page.content()).toContain('No endpoints yet.');

    await page.getByRole('link', { name: 'owner@northwind.example' }).click();
    await page.getByLabel('Your name').fill('Nadia Owner');
    await page.getByRole('button', { name: 'Save' }).click();
    expect(await status(page)).toBe('Profile saved.');
    expect(await page.locator('header.top a.profile').textContent()).toBe('Nadia Owner');
  });

  it('on a 390-px phone: through the menu to a story; assign from the picker, close and reopen, apply a proposal, share and stop', async () => {
    const event = await w.story(BRAND, 77);
    const unlocked = await svc.request('POST', '/v1/advisory', {
      key: w.keys.owner,
      body: { brand: BRAND, event_uri: event },
    });
    expect(unlocked.status).toBe(200);
    const page = await (
      await browser.newContext({ viewport: { width: 390, height: 844 } })
    ).newPage();
    await signIn(page, svc.url);
    await page.getByRole('button', { name: 'Menu' }).click();
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Stories' })
      .click();
    await page.getByRole('link', { name: 'Northwind story number 77' }).click();

    const phase = page.locator('details.act', {
      has: page.locator('summary', { hasText: /^Assign phase 1$/ }),
    });
    await phase.locator('summary').click();
    // The picker offers the team.
    expect(await page.locator('datalist#teammates option').first().getAttribute('value')).toBe(
      'owner@northwind.example',
    );
    await phase.getByLabel('Teammate').fill('owner@northwind.example');
    await phase.getByRole('button', { name: 'Assign' }).click();
    expect(await status(page)).toBe('Assigned.');

    await page.locator('summary', { hasText: 'Close the story' }).click();
    await page.getByLabel('needs no action').check();
    await page
      .locator('form[action$="/close"]')
      .getByRole('button', { name: 'Close the story' })
      .click();
    expect(await status(page)).toBe('The story is closed: no new article joins it.');
    expect(await page.locator('dd > span.status').textContent()).toBe('closed');
    await page.getByRole('button', { name: 'Reopen' }).click();
    expect(await page.locator('dd > span.status').textContent()).toBe('in progress');
    expect(
      await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
    ).toBeLessThanOrEqual(0);

    // Context, then its proposal read in words and applied.
    await page.getByLabel('Add what the coverage does not say').fill('The recall ended on Monday.');
    await page.getByRole('button', { name: 'Add context' }).click();
    await svc.app.jobs.drain();
    await page.getByRole('heading', { name: 'Proposed update of the advisory' }).waitFor();
    expect(await page.locator('#proposal').textContent()).toContain('New phase');
    await page.getByRole('button', { name: 'Apply the proposal' }).click();
    expect(await status(page)).toBe('The proposal is applied.');

    // Shared, then stopped through its question.
    await page.getByRole('button', { name: 'Share', exact: true }).click();
    expect(await status(page)).toBe('Share settings saved.');
    await page.getByRole('button', { name: 'Stop sharing' }).click();
    await page.getByRole('heading', { name: 'Stop sharing this story?' }).waitFor();
    await page.getByRole('button', { name: 'Stop sharing' }).click();
    expect(await status(page)).toMatch(/^The story is no longer shared/);
    expect(
      await page.evaluate('document.documentElement.scrollWidth - window.innerWidth'),
    ).toBeLessThanOrEqual(0);
  });
});
