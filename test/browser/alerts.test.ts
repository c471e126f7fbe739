import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBrandByHost } from '../../src/domain/brands.js';
import { importStory } from '../../src/domain/import-story.js';
import { launchChromium, SHOTS, signIn } from '../support/browser.js';
import { startService, type TestService } from '../support/harness.js';
import { startReceiver } from '../support/receiver.js';
import { seedWorld } from '../support/world.js';

/**
 * Setting up an alert as a person does in Chromium, then receiving it: a rule with a
 * Slack incoming webhook (a local receiver of Slack's shape), a serious story, and the
 * alert in Slack and on the Alerts page.
 */
let svc: TestService;
let browser: Browser;
let slack: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  slack = await startReceiver();
  svc = await startService({ FETCH_ALLOW_HOSTS: `127.0.0.1:${slack.port}` }, { runJobs: false });
  await seedWorld(svc.app);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await svc?.close();
  await slack?.close();
});

describe('alerts in a browser', () => {
  it('sets up a Slack alert for one brand, then sees it sent when a serious story comes', async () => {
    const page = await (
      await browser.newContext({ viewport: { width: 1280, height: 900 } })
    ).newPage();
    await signIn(page, svc.url);
    await page
      .getByRole('navigation', { name: 'Sections' })
      .getByRole('link', { name: 'Alerts' })
      .click();
    await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('Serious at Northwind');
    await page.getByLabel('Northwind (northwind.example)').check();
    await page.getByLabel('Minimum severity').selectOption('high');
    await page.getByLabel('Email (to you').uncheck();
    await page.getByLabel('Slack incoming webhook URL').fill(slack.url('/services/T0/B0/x'));
    await page.getByRole('button', { name: 'Add rule' }).click();
    expect((await page.getByRole('status').first().textContent())?.trim()).toBe(
      'Alert rule added: matching stories are sent from now on.',
    );
    const row = page.getByRole('row', { name: /Serious at Northwind/ });
    expect(await row.textContent()).toContain(`Slack (127.0.0.1:${slack.port})`);

    const brand = await requireBrandByHost(svc.app, 'northwind.example');
    await importStory(svc.app, {
      brand,
      actor: 'operator',
      article: {
        url: 'https://news.example.org/northwind/breach',
        title: 'Northwind data breach exposes customer accounts',
        text: 'Attackers stole customer data from Northwind in a data breach; regulators are investigating the hack.',
        publisher: 'Example News',
        published_at: '2026-11-20',
      },
    });
    await svc.app.jobs.drain();
    const [message] = slack.on('/services/T0/B0/x');
    expect(JSON.parse(message!.body).text).toContain(
      'Northwind data breach exposes customer accounts',
    );

    await page.reload();
    const sent = page.getByRole('row', { name: /Northwind data breach/ });
    expect(await sent.textContent()).toContain('Slack: sent');
    await page.screenshot({ path: new URL('alerts.png', SHOTS).pathname, fullPage: true });
    await sent
      .getByRole('link', { name: 'Northwind data breach exposes customer accounts' })
      .click();
    await page
      .getByRole('heading', { name: 'Northwind data breach exposes customer accounts' })
      .waitFor();
  });
});
