import { getDomain } from 'tldts';

/**
 * How far a story has spread, from the distinct publishers covering it and their kind
 * (docs/pipeline.md, "Spread"). A newsroom reaches more people than a forum post, a wire
 * service or a national title more than a local one (its copy is syndicated and quoted),
 * and the brand's own press release spreads nothing.
 */

export type Spread = 'contained' | 'growing' | 'widespread' | 'viral';

/** Reach of one publisher by the kind of source it published. */
const REACH: Record<string, number> = {
  news: 1,
  official: 1,
  blog: 0.5,
  review: 0.5,
  forum: 0.5,
  social: 0.5,
  other: 0.5,
  press_release: 0,
};

/** News from these sites counts twice: wire services and titles read across borders. */
const MAJOR_REACH = 2;
const MAJOR = new Set([
  'reuters.com',
  'apnews.com',
  'afp.com',
  'bloomberg.com',
  'bbc.co.uk',
  'bbc.com',
  'cnn.com',
  'nytimes.com',
  'wsj.com',
  'washingtonpost.com',
  'theguardian.com',
  'ft.com',
  'economist.com',
  'nbcnews.com',
  'cbsnews.com',
  'foxnews.com',
  'usatoday.com',
  'aljazeera.com',
  'lemonde.fr',
  'lefigaro.fr',
  'afp.fr',
  'spiegel.de',
  'faz.net',
  'sueddeutsche.de',
  'zeit.de',
  'dw.com',
  'elpais.com',
  'elmundo.es',
  'corriere.it',
  'repubblica.it',
  'nikkei.com',
  'scmp.com',
]);

/** The reach of one source: its kind, doubled for news from a major publisher's site. */
function reachOf(s: { type?: string; url?: string }): number {
  const reach = REACH[s.type ?? 'news'] ?? 0.5;
  if (reach !== 1 || !s.url) return reach;
  const site = getDomain(s.url);
  return site && MAJOR.has(site) ? MAJOR_REACH : reach;
}

/**
 * The sum over distinct publishers (case and spacing ignored) of the largest reach of
 * what each published: under 2 is contained, under 4 growing, under 8 widespread, and 8
 * or more viral.
 */
export function spreadOf(
  sources: readonly { publisher: string; type?: string; url?: string }[],
): Spread {
  const best = new Map<string, number>();
  for (const s of sources) {
    const key = s.publisher.trim().toLowerCase().replace(/\s+/g, ' ');
    best.set(key, Math.max(best.get(key) ?? 0, reachOf(s)));
  }
  let total = 0;
  for (const r of best.values()) total += r;
  return total < 2 ? 'contained' : total < 4 ? 'growing' : total < 8 ? 'widespread' : 'viral';
}
