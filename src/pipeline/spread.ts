/**
 * How far a story has spread, from the distinct publishers covering it and their kind
 * (docs/pipeline.md, "Spread"). A newsroom reaches more people than a forum post, and the
 * brand's own press release spreads nothing.
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

/**
 * The sum over distinct publishers (case and spacing ignored) of the largest reach of
 * what each published: under 2 is contained, under 4 growing, under 8 widespread, and 8
 * or more viral.
 */
export function spreadOf(sources: readonly { publisher: string; type?: string }[]): Spread {
  const best = new Map<string, number>();
  for (const s of sources) {
    const key = s.publisher.trim().toLowerCase().replace(/\s+/g, ' ');
    const reach = REACH[s.type ?? 'news'] ?? 0.5;
    best.set(key, Math.max(best.get(key) ?? 0, reach));
  }
  let total = 0;
  for (const r of best.values()) total += r;
  return total < 2 ? 'contained' : total < 4 ? 'growing' : total < 8 ? 'widespread' : 'viral';
}
