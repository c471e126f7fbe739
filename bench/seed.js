/**
 * Seeds a benchmark data set through the project's own code (dist/, so `npm run build`
 * first): partner accounts, one brand each, many API keys, and stories with live
 * advisories of which every other one is unlocked.
 *
 * Keys go through createKey (the secret is only ever stored hashed, so this is the only
 * way to get usable keys). Stories are built by buildStoryRows, the very function
 * importStory writes with, but inserted in bulk: importStory's one transaction per story
 * (~1.4 ms) would take ~14 s for 10,000.
 */
import { loadConfig } from '../dist/config.js';
import { createContext } from '../dist/context.js';
import { migrate } from '../dist/db/database.js';
import { createAccount } from '../dist/domain/accounts.js';
import { createKey } from '../dist/domain/api-key-admin.js';
import { addBrand, brandTermsOf } from '../dist/domain/brands.js';
import { sumCoverage } from '../dist/domain/coverage.js';
import { buildStoryRows } from '../dist/domain/import-story.js';
import { firstSource } from '../dist/pipeline/builtin-advisor.js';
import { withJudgement } from '../dist/pipeline/judgement.js';

/** Article templates covering risk and positive topics, so severities and playbooks vary. */
const TEMPLATES = [
  [
    '{b} recalls 40,000 kettles after reports of injuries',
    '{b} announced a voluntary recall of kettles on Friday. Regulators received eleven reports of minor burn injuries linked to a defect in the lid hinge. Customers should stop using the kettles and ask for a refund.',
  ],
  [
    '{b} confirms data breach affecting customer accounts',
    'Attackers gained access to a database holding personal data of {b} customers. The company said passwords were not exposed and that it has informed the privacy regulator.',
  ],
  [
    '{b} sued over misleading pricing',
    'A consumer group filed a lawsuit against {b} in federal court on Tuesday. The complaint says advertised prices left out mandatory fees; the company said it would defend itself.',
  ],
  [
    'Workers at {b} warehouse vote to strike',
    'Warehouse workers at {b} voted to strike next week after talks with the union broke down. The walkout could delay deliveries during the busiest month of the year.',
  ],
  [
    '{b} app outage leaves customers stranded',
    'Customers complained on social media after the {b} app was unavailable for six hours on Monday. The company apologised for the outage and promised to look into refunds.',
  ],
  [
    '{b} CEO resigns after board review',
    'The chief executive of {b} resigned on Wednesday following a review by the board. An interim CEO was named while the search for a successor begins.',
  ],
  [
    '{b} beats revenue expectations',
    '{b} reported quarterly revenue above analyst expectations, driven by strong online sales. Shares rose four percent in early trading after the earnings call.',
  ],
  [
    '{b} wins design award for its new product line',
    'The new product line from {b} won a national design award this week. Judges praised the launch for its repairable construction and clear instructions.',
  ],
];
const PUBLISHERS = ['Example News', 'Example Tech Blog', 'Daily Example', 'Example Business Wire'];
const TYPES = ['news', 'blog', 'news', 'press_release'];

function articleFor(brand, n, detectedAt) {
  const [title, text] = TEMPLATES[n % TEMPLATES.length];
  return {
    url: `https://news${n % 4}.example/${brand.host}/${n}`,
    title: title.replaceAll('{b}', brand.name),
    publisher: PUBLISHERS[n % 4],
    published_at: detectedAt.slice(0, 10),
    text: text.replaceAll('{b}', brand.name),
    type: TYPES[n % 4],
  };
}

const BULK_TABLES = ['stories', 'articles', 'advisories', 'phases', 'story_documents', 'audit_log'];

/**
 * Seeds `databaseUrl` (a fresh sqlite: file) and returns what the load generator needs:
 * every key with the host it may read, and every brand's event_uris (odd index = unlocked).
 */
export async function seed(
  databaseUrl,
  { brands = 100, keys = 1000, storiesPerBrand = 100 } = {},
  onProgress,
) {
  const app = await createContext(loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' }));
  try {
    await migrate(app.db);
    const timings = {};
    let t = performance.now();

    // Partner plan: the plans without API access answer every key with 403.
    const brandList = [];
    for (let b = 0; b < brands; b++) {
      const name = `Brand${String(b).padStart(3, '0')}`;
      const host = `${name.toLowerCase()}.example`;
      const accountId = await createAccount(app, `${name} Inc`, 'partner');
      const id = await addBrand(app, { accountId, host, name, verified: true });
      brandList.push({ id, account_id: accountId, host, name });
    }
    // Full-scope member keys, spread round-robin over the accounts: key i reads brand i % brands.
    // Made 100 at a time: one by one, 12,000 keys took longer than the stories.
    const keyList = [];
    for (let first = 0; first < keys; first += 100) {
      const made = [];
      for (let i = first; i < Math.min(keys, first + 100); i++) {
        const brand = brandList[i % brands];
        made.push(
          createKey(app, {
            accountId: brand.account_id,
            role: 'member',
            scope: null,
            actor: 'operator',
          }).then(({ key }) => ({ key, host: brand.host })),
        );
      }
      keyList.push(...(await Promise.all(made)));
    }
    timings.accountsAndKeys = performance.now() - t;
    t = performance.now();

    // Newest first, an hour apart per story, so list_stories pages through a real timeline.
    // Written a batch of brands at a time, each batch in one transaction, so a million
    // stories never sit in memory at once.
    const start = Date.now() - 3_600_000;
    const now = new Date().toISOString();
    const stories = {};
    const BRANDS_PER_BATCH = 50;
    for (let first = 0; first < brandList.length; first += BRANDS_PER_BATCH) {
      const bulk = Object.fromEntries(BULK_TABLES.map((table) => [table, []]));
      const coverage = [];
      for (const [i, brand] of brandList.slice(first, first + BRANDS_PER_BATCH).entries()) {
        const b = first + i;
        stories[brand.host] = [];
        const terms = brandTermsOf(brand);
        // Judged and advised as importStory does it, with the configured (built-in) advisor,
        // once per template: the brand's stories of one template differ only in their URL
        // and date, which neither the judgement nor the advisor reads (a tenth of the time).
        const judged = new Map();
        for (let n = 0; n < storiesPerBrand; n++) {
          const detectedAt = new Date(start - n * 3_600_000 - b * 1000).toISOString();
          const raw = articleFor(brand, n, detectedAt);
          const template = n % TEMPLATES.length;
          if (!judged.has(template)) {
            const article = withJudgement(raw, terms);
            judged.set(template, {
              article,
              generated: await app.advisor.generate([firstSource(article)], terms),
            });
          }
          const { generated, ...cached } = judged.get(template);
          const article = { ...cached.article, url: raw.url, published_at: raw.published_at };
          const rows = buildStoryRows({
            brand,
            article,
            actor: 'operator',
            detectedAt,
            now,
            generated,
          });
          // Every other story is unlocked, so get_story serves both the teaser and the full plan.
          if (n % 2 === 1) rows.stories.unlocked_at = detectedAt;
          for (const table of BULK_TABLES) bulk[table].push(...[rows[table]].flat());
          coverage.push(...rows.coverage);
          stories[brand.host].push(rows.eventUri);
        }
      }
      // The overview's counts of the batch's brands, summed as addCoverage would have.
      bulk.coverage_days = sumCoverage(coverage);
      // 500 rows a statement: well under SQLite's bound-variable limit.
      await app.db.transaction().execute(async (trx) => {
        for (const table of [...BULK_TABLES, 'coverage_days']) {
          for (let i = 0; i < bulk[table].length; i += 500) {
            await trx
              .insertInto(table)
              .values(bulk[table].slice(i, i + 500))
              .execute();
          }
        }
      });
      onProgress?.(Math.min(first + BRANDS_PER_BATCH, brandList.length) * storiesPerBrand);
    }
    timings.stories = performance.now() - t;
    return { keys: keyList, stories, timings };
  } finally {
    await app.close();
  }
}
