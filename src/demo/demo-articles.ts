import type { ArticleInput } from '../pipeline/builtin-advisor.js';

/**
 * Fictional coverage for the demo brands: enough variety to show a crisis, a threat, good
 * news and the everyday (critical, high and low stories, and each kind of plan).
 */
export const DEMO_ARTICLES: { host: string; daysAgo: number; article: ArticleInput }[] = [
  {
    host: 'acme.com',
    daysAgo: 0,
    article: {
      url: 'https://news.example.org/2026/acme-recall',
      title: 'Acme recalls 40,000 kettles after reports of injuries',
      publisher: 'Example News',
      published_at: '2026-11-21',
      text: 'Acme announced a voluntary recall of 40,000 electric kettles on Friday. Regulators said they had received eleven reports of minor burn injuries linked to a defect in the lid hinge. Acme said customers should stop using the kettles and contact the company for a full refund. A class action has been filed in one state.',
    },
  },
  {
    host: 'acme.com',
    daysAgo: 1,
    article: {
      url: 'https://blog.example.net/acme-support-delays',
      title: "Customers complain about Acme's support delays",
      publisher: 'Example Tech Blog',
      published_at: '2026-11-20',
      type: 'blog',
      text: "Several readers wrote in this week to complain about long waits when contacting Acme customer service. One reader said a refund request had been open for three weeks. Acme's support page says response times are longer than usual due to seasonal demand.",
    },
  },
  {
    host: 'acme.com',
    daysAgo: 3,
    article: {
      url: 'https://design.example.com/awards-2026',
      title: 'Acme wins design award for its new toaster line',
      publisher: 'Example Design Weekly',
      published_at: '2026-11-18',
      text: 'Acme received the annual industrial design award for its new toaster line. The jury praised the product for its repairable construction and simple controls. Acme said the line will launch in twelve new markets next spring.',
    },
  },
  {
    host: 'globex.com',
    daysAgo: 0,
    article: {
      url: 'https://news.example.org/2026/globex-breach',
      title: 'Globex confirms data breach exposing 2.3 million customers',
      publisher: 'Example News',
      published_at: '2026-11-21',
      text: 'Globex said on Saturday that personal data of 2.3 million customers was exposed in a data breach. The company has informed the privacy regulator and reset affected passwords. Security researchers said the stolen records appeared on a criminal forum earlier this week.',
    },
  },
  {
    host: 'globex.com',
    daysAgo: 2,
    article: {
      url: 'https://markets.example.com/globex-earnings',
      title: 'Globex quarterly earnings beat expectations',
      publisher: 'Example Markets',
      published_at: '2026-11-19',
      text: 'Globex reported quarterly revenue above analyst expectations, driven by its cloud division. Shares rose four percent in early trading. The company raised its full-year outlook.',
    },
  },
  {
    host: 'northwind.example',
    daysAgo: 1,
    article: {
      url: 'https://pr.example.com/northwind-launch',
      title: 'Northwind unveils a new crisis-monitoring service',
      publisher: 'Example PR Wire',
      published_at: '2026-11-20',
      type: 'press_release',
      text: 'Northwind introduced a new service that helps brands monitor coverage and respond to crises. The agency said the launch follows a year of pilots with retail clients.',
    },
  },
];
