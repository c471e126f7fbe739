import { decodeHTML } from 'entities';
import type { Doc } from './dom.js';

/**
 * The JSON-LD blocks of a page (schema.org), read defensively: bounded in depth and size,
 * @graph and nested main entities flattened, so the article's own node can be found.
 */
export type Json = Record<string, unknown>;
const ARTICLE_TYPE =
  /^(?:Article|AdvertiserContentArticle|NewsArticle|AnalysisNewsArticle|AskPublicNewsArticle|BackgroundNewsArticle|OpinionNewsArticle|ReportageNewsArticle|ReviewNewsArticle|Report|SatiricalArticle|ScholarlyArticle|MedicalScholarlyArticle|SocialMediaPosting|BlogPosting|LiveBlogPosting|DiscussionForumPosting|TechArticle|APIReference)$/;
/** Where a page nests its article inside another object (a WebPage's mainEntity…). */
const NESTING_KEYS = ['mainEntity', 'mainEntityOfPage', 'hasPart'];
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const typesOf = (node: Json): string[] =>
  (Array.isArray(node['@type']) ? node['@type'] : [node['@type']])
    .filter((t): t is string => typeof t === 'string')
    // "https://schema.org/NewsArticle" and "schema:NewsArticle" are NewsArticle.
    .map((t) => t.replace(/^.*[/:#]/, ''));
export const isArticle = (node: Json) => typesOf(node).some((t) => ARTICLE_TYPE.test(t));

export interface JsonLd {
  /** Every object of the page's JSON-LD, outermost first (breadth first), @graph flattened. */
  nodes: Json[];
  /** Objects with an @id, to resolve references such as "author": {"@id": "#lois"}. */
  byId: Map<string, Json>;
}

/** Bounds on what is read of a page's JSON-LD, whatever a page puts there. */
const LD_DEPTH = 4;
const LD_NODES = 1_000;
const LD_NESTED_ARRAYS = 4;

/**
 * The page's JSON-LD blocks; a block that does not parse says nothing. Read a few levels
 * deep, outermost first: the page's own article is at the top, in a @graph, or a
 * WebPage's mainEntity; whatever lies deeper is rarely the page itself.
 */
export function readJsonLd(doc: Doc): JsonLd {
  const levels: Json[][] = Array.from({ length: LD_DEPTH }, () => []);
  const byId = new Map<string, Json>();
  let count = 0;
  const visit = (item: unknown, depth: number, arrays = 0): void => {
    if (depth >= LD_DEPTH) return;
    if (Array.isArray(item)) {
      if (arrays >= LD_NESTED_ARRAYS) return;
      for (const member of item) {
        if (count >= LD_NODES) return;
        visit(member, depth, arrays + 1);
      }
      return;
    }
    if (!isObject(item) || count >= LD_NODES) return;
    count++;
    levels[depth]!.push(item);
    const id = item['@id'];
    if (typeof id === 'string' && !byId.has(id)) byId.set(id, item);
    visit(item['@graph'], depth);
    for (const key of NESTING_KEYS) visit(item[key], depth + 1);
  };
  for (const script of doc.querySelectorAll('script[type="application/ld+json" i]')) {
    let data: unknown;
    try {
      data = JSON.parse(
        (script.textContent ?? '').replace(/^\s*(?:<!\[CDATA\[|<!--)|(?:\]\]>|-->)\s*$/g, ''),
      );
    } catch {
      continue; // A broken block says nothing.
    }
    visit(data, 0);
  }
  return { nodes: levels.flat(), byId };
}

export const articles = (ld: JsonLd) => ld.nodes.filter(isArticle);
/** The page's article says it is opinion: schema.org's OpinionNewsArticle. */
export const isOpinion = (node: Json) => typesOf(node).includes('OpinionNewsArticle');
/**
 * "x", ["x", …] or {"@value": "x"}: the string, else undefined. Publishers often write
 * HTML entities into JSON-LD ("Via &#8216;Sex Game&#8217;"): they are decoded, as a
 * page's own text is.
 */
export function firstString(value: unknown): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  const s = typeof v === 'string' ? v : isObject(v) ? v['@value'] : undefined;
  if (typeof s !== 'string') return undefined;
  return s.includes('&') ? decodeHTML(s) : s;
}

/** The names in an author value: "Lois", {name}, {"@id"} of a Person in the graph, or a list. */
export function authorNames(value: unknown, ld: JsonLd): string[] {
  return (Array.isArray(value) ? value.slice(0, 20) : [value]).flatMap((author) => {
    if (typeof author === 'string') return [author];
    if (!isObject(author)) return [];
    const node =
      author.name === undefined && typeof author['@id'] === 'string'
        ? ld.byId.get(author['@id'])
        : author;
    const name = firstString(node?.name);
    return name ? [name] : [];
  });
}
