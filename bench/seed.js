/**
 * Seeds a benchmark data set through the project's own code (dist/, so `npm run build`
 * first): partner accounts, one brand each, many API keys, and stories with live
 * advisories of which every other one is unlocked.
 *
 * Keys go through createKey (the secret is only ever stored hashed, so this is the only
 * way to get usable keys). Stories are the exception: importStory costs ~1.4 ms a story
 * (one transaction, six statements), ~14 s for 10,000, so only the first story of each
 * brand goes through it; the rest are written in a few big transactions with exactly the
 * rows importStory writes, and storyShape() compares the two so they cannot drift.
 */
import { loadConfig } from '../dist/config.js';
import { createContext } from '../dist/context.js';
import { migrate } from '../dist/db/database.js';
import { createAccount } from '../dist/domain/accounts.js';
import { createKey } from '../dist/domain/api-key-admin.js';
import { addBrand } from '../dist/domain/brands.js';
import { importStory } from '../dist/domain/import-story.js';
import { newId } from '../dist/ids.js';
import { generateAdvisory } from '../dist/pipeline/builtin-advisor.js';

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

/** Exactly the rows src/domain/import-story.ts writes for one article, in one object. */
function storyRows(brand, article, detectedAt, now) {
  const g = generateAdvisory(article);
  const storyId = newId('sto');
  const eventUri = newId('evt');
  const advisoryId = newId('adv');
  return {
    eventUri,
    stories: {
      id: storyId,
      event_uri: eventUri,
      brand_id: brand.id,
      title: article.title,
      severity: g.severity,
      topics: JSON.stringify(g.topics),
      spread: g.spread,
      status: 'new',
      assignee_user_id: null,
      detected_at: detectedAt,
      last_activity_at: detectedAt,
      unlocked_at: null,
      created_at: now,
    },
    articles: {
      id: newId('art'),
      story_id: storyId,
      source_key: 's1',
      url: article.url,
      canonical_url: article.url,
      publisher: article.publisher,
      title: article.title,
      published_at: article.published_at,
      type: article.type ?? 'news',
      text: article.text,
      created_at: now,
    },
    advisories: {
      id: advisoryId,
      story_id: storyId,
      version: 1,
      kind: 'live',
      status: 'ready',
      assessment: g.assessment,
      urgency: g.urgency,
      spread: g.spread,
      schema: 'advisory.v1',
      executive_summary: JSON.stringify(g.executiveSummary),
      summary_basis: JSON.stringify(g.summaryBasis),
      diff: null,
      context: null,
      generator: 'builtin',
      requested_at: null,
      created_at: now,
      applied_at: now,
    },
    phases: g.phases.map((p, i) => ({
      id: newId('pha'),
      advisory_id: advisoryId,
      number: i + 1,
      title: p.title,
      actions: JSON.stringify(p.actions),
      status: 'open',
      assignee_user_id: null,
      done_by: null,
      done_at: null,
      comment: null,
    })),
    audit_log: {
      id: newId('aud'),
      account_id: brand.account_id,
      brand_id: brand.id,
      story_id: storyId,
      actor: 'operator',
      action: 'story.created',
      details: JSON.stringify({ event_uri: eventUri, url: article.url }),
      created_at: now,
    },
  };
}

const BULK_TABLES = ['stories', 'articles', 'advisories', 'phases', 'audit_log'];

/** Per table, the story's rows as their null columns: values differ, the shape must not. */
async function storyShape(db, eventUri) {
  const s = await db
    .selectFrom('stories')
    .selectAll()
    .where('event_uri', '=', eventUri)
    .executeTakeFirstOrThrow();
  const of = (table, column, value) =>
    db.selectFrom(table).selectAll().where(column, 'in', value).execute();
  const advisories = await of('advisories', 'story_id', [s.id]);
  const rows = {
    stories: [s],
    articles: await of('articles', 'story_id', [s.id]),
    advisories,
    phases: await of(
      'phases',
      'advisory_id',
      advisories.map((a) => a.id),
    ),
    audit_log: await of('audit_log', 'story_id', [s.id]),
  };
  const nulls = (r) => Object.keys(r).filter((k) => r[k] === null);
  return JSON.stringify(Object.entries(rows).map(([table, list]) => [table, list.map(nulls)]));
}

/**
 * Seeds `databaseUrl` (a fresh sqlite: file) and returns what the load generator needs:
 * every key with the host it may read, and every brand's event_uris (odd index = unlocked).
 */
export async function seed(databaseUrl, { brands = 100, keys = 1000, storiesPerBrand = 100 } = {}) {
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
      const id = await addBrand(app, accountId, host, name, true);
      brandList.push({ id, account_id: accountId, host, name });
    }
    // Full-scope member keys, spread round-robin over the accounts: key i reads brand i % brands.
    const keyList = [];
    for (let i = 0; i < keys; i++) {
      const brand = brandList[i % brands];
      const { key } = await createKey(app, {
        accountId: brand.account_id,
        role: 'member',
        scope: null,
        actor: 'operator',
      });
      keyList.push({ key, host: brand.host });
    }
    timings.accountsAndKeys = performance.now() - t;
    t = performance.now();

    // Newest first, an hour apart per story, so list_stories pages through a real timeline.
    const start = Date.now() - 3_600_000;
    const now = new Date().toISOString();
    const stories = {};
    const bulk = Object.fromEntries(BULK_TABLES.map((table) => [table, []]));
    for (const [b, brand] of brandList.entries()) {
      stories[brand.host] = [];
      for (let n = 0; n < storiesPerBrand; n++) {
        const detectedAt = new Date(start - n * 3_600_000 - b * 1000).toISOString();
        const article = articleFor(brand, n, detectedAt);
        if (n === 0) {
          const { event_uri } = await importStory(app, brand, article, 'operator', detectedAt);
          stories[brand.host].push(event_uri);
          continue;
        }
        const rows = storyRows(brand, article, detectedAt, now);
        // Every other story is unlocked, so get_story serves both the teaser and the full plan.
        if (n % 2 === 1) rows.stories.unlocked_at = detectedAt;
        for (const table of BULK_TABLES) bulk[table].push(...[rows[table]].flat());
        stories[brand.host].push(rows.eventUri);
      }
    }
    // One transaction, 500 rows a statement: well under SQLite's bound-variable limit.
    await app.db.transaction().execute(async (trx) => {
      for (const table of BULK_TABLES) {
        for (let i = 0; i < bulk[table].length; i += 500) {
          await trx
            .insertInto(table)
            .values(bulk[table].slice(i, i + 500))
            .execute();
        }
      }
    });
    // Stories 0 (importStory) and 2 (bulk) are both locked risk stories: same shape.
    const [imported, , bulkOne] = stories[brandList[0].host];
    const [a, b] = [await storyShape(app.db, imported), await storyShape(app.db, bulkOne)];
    if (a !== b) throw new Error(`seed: bulk rows drifted from importStory:\n  ${a}\n  ${b}`);
    timings.stories = performance.now() - t;
    return { keys: keyList, stories, timings };
  } finally {
    await app.close();
  }
}
