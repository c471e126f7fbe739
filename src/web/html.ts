import { languageName } from '../pipeline/language-name.js';

/**
 * Server-rendered HTML with escaping by default: every interpolated value is escaped
 * unless it is itself an `Html` fragment built by this tag.
 */
export class Html {
  constructor(readonly value: string) {}
  toString() {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** A link target from stored data: only http(s) URLs, anything else goes nowhere. */
export const safeHref = (url: string) => (/^https?:\/\//i.test(url) ? url : '#');

/** ", French" after a source, for readers who will open it; nothing when unknown. */
export const languageTag = (language: string | null | undefined): Html | null =>
  language ? html`, <span title="language">${languageName(language)}</span>` : null;

/**
 * A source's date as a reader should take it: its publication date, or "undated (read
 * 2026-11-28)" when the page stated none, so the day it was read is not taken for it.
 */
export const sourceDate = (publishedAt: string, undated: boolean | undefined): Html =>
  undated
    ? html`<span title="the page states no publication date">undated (read ${publishedAt})</span>`
    : html`${publishedAt}`;

/** "sentiment −0.40 (negative)": how a source, or a story, speaks of the brand. */
export const sentimentText = (sentiment: number): Html =>
  html`<span title="how it speaks of the brand, −1 to 1">sentiment ${sentiment.toFixed(2).replace('-', '−')} (${sentiment <= -0.2 ? 'negative' : sentiment >= 0.2 ? 'positive' : 'neutral'})</span>`;

/** ", sentiment −0.40 (negative)" after a source; nothing when not scored. */
export const sentimentTag = (sentiment: number | null | undefined): Html | null =>
  sentiment == null ? null : html`, ${sentimentText(sentiment)}`;

export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

type Value = Html | string | number | null | undefined | false | readonly Value[];

function render(v: Value): string {
  if (v === null || v === undefined || v === false) return '';
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!) + strings[i + 1]!;
  return new Html(out);
}

/** Headers of every HTML page: no scripts, no framing, nothing cached or leaked. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

/**
 * The service's look, one for every page (the portal, sign-in and consent, shares,
 * checkout; onboarding wears a partner's colours over it, see `brandedPage`): one
 * stylesheet inline (the CSP allows inline styles and no scripts), a top bar, and the
 * page. Works without JavaScript; every action is a form.
 */
export const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2433;background:#f6f7fb}
a{color:#1f4fd1}a:focus,button:focus,input:focus,select:focus,textarea:focus{outline:3px solid #9db5ff;outline-offset:1px}
header.top{background:#101828;color:#fff}
.skip{position:absolute;left:-10000px;top:0;z-index:10;background:#fff;color:#1f4fd1;padding:.5rem .75rem;border-radius:0 0 6px 0}
.skip:focus{left:0}
main:focus{outline:none}
header.top .bar{max-width:76rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center}
header.top .logo{font-weight:700;font-size:1.1rem;color:#fff;text-decoration:none;margin-right:.5rem}
header.top nav{display:flex;flex-wrap:wrap;gap:.25rem}
header.top nav a{color:#cfd6e4;text-decoration:none;padding:.3rem .6rem;border-radius:6px}
header.top nav a[aria-current=page]{background:#24324d;color:#fff}
header.top .me a{color:#cfd6e4}
header.top .me{margin-left:auto;display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
header.top select,header.top button{font:inherit;font-size:.85rem;padding:.25rem .5rem;border-radius:6px;border:1px solid #3a4763;background:#1b2740;color:#fff}
main{max-width:76rem;margin:0 auto;padding:1.5rem 1rem 4rem}
h1{font-size:1.5rem;margin:.2rem 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.card{background:#fff;border:1px solid #e2e6ef;border-radius:10px;padding:1.1rem 1.25rem;margin:0 0 1rem}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr))}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #e2e6ef;border-radius:10px;overflow:hidden}
th,td{text-align:left;padding:.55rem .75rem;border-bottom:1px solid #eef1f6;vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:#5b6577;background:#fafbfd}
tbody th[scope=row]{font-size:inherit;text-transform:none;letter-spacing:0;color:inherit;background:none;font-weight:600}
.badge{display:inline-block;font-size:.75rem;font-weight:600;padding:.1rem .5rem;border-radius:99px;background:#eef1f6;color:#344054}
.sev-low{background:#e7f6ec;color:#1a6b3a}.sev-medium{background:#fff4d6;color:#8a5a00}
.sev-high{background:#ffe6d5;color:#a63f00}.sev-critical{background:#fde2e1;color:#a4161a}
.muted{color:#5b6577}.small{font-size:.85rem}
.notice{padding:.6rem .9rem;border-radius:8px;margin:0 0 1rem;background:#e8f0ff;color:#1b3c99}
.error{padding:.6rem .9rem;border-radius:8px;margin:0 0 1rem;background:#fde2e1;color:#8a1116;font-weight:600}
label{display:block;font-weight:600;margin:.6rem 0 .2rem}
input[type=text],input[type=email],input[type=password],input[type=url],select,textarea{font:inherit;width:100%;max-width:32rem;padding:.45rem .6rem;border:1px solid #b9c1cf;border-radius:6px;background:#fff}
textarea{min-height:6rem}
button{font:inherit;padding:.45rem 1rem;border-radius:6px;border:0;background:#1f4fd1;color:#fff;cursor:pointer}
button.secondary{background:#e8ebf2;color:#1d2433}button.danger{background:#b42318}
form.inline{display:inline}form.row,div.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
form.row label,div.row label{margin:0}.filters{margin:0 0 1rem}.filters div.row+div.row,.filters details{margin-top:.6rem}
input:not([type]),input[type=search],input[type=date]{font:inherit;max-width:32rem;padding:.45rem .6rem;border:1px solid #b9c1cf;border-radius:6px;background:#fff}
input[type=search]{width:100%}
button.link{background:none;color:#1f4fd1;padding:0;text-decoration:underline}
ul.views{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;list-style:none;padding:0;margin:0 0 .5rem}
.chart{margin:0}.chart figcaption{font-weight:600;margin:0 0 .4rem}.chart-svg{width:100%;height:auto;display:block}
.tick{font-size:11px;fill:#5b6577}svg.defs{position:absolute;width:0;height:0;overflow:hidden}
ul.legend{display:flex;flex-wrap:wrap;gap:.4rem 1rem;list-style:none;padding:0;margin:.4rem 0;font-size:.85rem}ul.legend li{display:flex;gap:.3rem;align-items:center}
ol.ranks{list-style:none;padding:0;margin:0}ol.ranks li{display:grid;grid-template-columns:minmax(0,1fr) auto;gap:.15rem .5rem;margin:0 0 .5rem}
.rank-label{overflow-wrap:anywhere}.rank-n{font-weight:600}.meter{grid-column:1/-1;height:6px;background:#eef1f6;border-radius:3px}.meter>span{display:block;height:100%;background:#1f4fd1;border-radius:3px}
dl.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(7rem,1fr));gap:.75rem;margin:0}dl.stats dt{font-size:.8rem;color:#5b6577}dl.stats dd{margin:0;font-size:1.5rem;font-weight:700}
details.numbers{margin:.4rem 0 0;font-size:.85rem}details.numbers>summary{cursor:pointer;color:#1f4fd1}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}dl.facts dt{font-weight:600}
ol.plan>li{margin:0 0 .75rem}
code.secret{display:block;padding:.6rem;background:#101828;color:#9ff3b5;border-radius:6px;word-break:break-all}
.auth{max-width:26rem;margin:3rem auto}.narrow{max-width:44rem;margin:2rem auto}
.narrow dl{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
.table-wrap{overflow-x:auto;margin:0 0 1rem}.table-wrap>table{margin:0}.wrap,main a,main code{overflow-wrap:anywhere}
.workspace{display:grid;grid-template-columns:minmax(0,1fr) 22rem;gap:0 1.5rem;align-items:start}
.workspace aside>h2:first-child,.workspace .main-col>h2:first-child{margin-top:0}
details.act{margin:.4rem 0}details.act>summary{cursor:pointer;color:#1f4fd1;font-size:.9rem}
.cite{position:relative}.cite .tip{display:none;position:absolute;left:0;top:1.4em;z-index:2;width:18rem;max-width:80vw;background:#101828;color:#fff;padding:.4rem .6rem;border-radius:6px;font-size:.8rem}
.cite:hover .tip,.cite:focus-within .tip{display:block}
.card>h2:first-child,.card>h3:first-child{margin-top:0}
.briefing blockquote{margin:0;font-size:1.05rem;border-left:4px solid #1f4fd1;padding:.2rem 0 .2rem .9rem}
.facts-line .badge{margin:0 .25rem .25rem 0}
tr.new>td{background:#f0f7ff}
@media print{header.top,.no-print,form,script,details.act,.menu-toggle,button{display:none!important}body{background:#fff;font-size:11pt}main,.narrow{max-width:none;margin:0;padding:0}.card{border:0;padding:0;margin:0 0 1rem}a{color:inherit;text-decoration:none}.briefing a[href^="http"]::after{content:" (" attr(href) ")";font-size:.8em;overflow-wrap:anywhere}section{break-inside:avoid}}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
del{background:#fde2e1}ins{background:#e7f6ec;text-decoration:none}
header.top .menu{display:contents}
.menu-toggle{display:none;margin-left:auto}
@media (max-width:60rem){.workspace{grid-template-columns:1fr}}
@media (max-width:40rem){
header.top .bar{padding:.5rem .75rem}
.js-menu .menu-toggle{display:inline-block}
.js-menu header.top .menu{display:none;flex-basis:100%;flex-direction:column;gap:.5rem}
.js-menu header.top .menu.open{display:flex}
header.top .me{margin-left:0}
main{padding:1rem .75rem 3rem}
main table,main tbody,main tr,main td{display:block;width:100%}
main thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
main tr{border-bottom:1px solid #e2e6ef;padding:.4rem 0}
main td{border:0;padding:.2rem .75rem;overflow-wrap:anywhere}
main td[data-label]:not(:empty)::before{content:attr(data-label) ": ";font-weight:600;color:#5b6577;font-size:.8rem}
dl.facts{grid-template-columns:1fr}dl.facts dd{margin:0 0 .4rem}
}
`;

const PUBLIC_TOP = html`<header class="top"><div class="bar"><a class="logo" href="/">Stories</a></div></header>`;

/** A complete page: the top bar (the public one when none is given) and the content. */
export function shell(
  title: string,
  top: Html | null,
  body: Html,
  timeZone?: string | null,
): string {
  return documentOf(`${title} · Stories`, STYLE, top ?? PUBLIC_TOP, body, '', timeZone);
}

/** `timeZone`: the reader's chosen zone, which the portal's script shows times in. */
function documentOf(
  title: string,
  style: string,
  top: Html,
  body: Html,
  foot: Html | '',
  timeZone?: string | null,
): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${timeZone ? html`<meta name="time-zone" content="${timeZone}">` : ''}
<title>${title}</title>
<style>${new Html(style)}</style>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
${top}
<main id="main" tabindex="-1">
${body}
</main>
${foot}
</body>
</html>`.value;
}

/** A page outside the portal's sections: shares, onboarding, OAuth, checkout, links. */
export function page(title: string, body: Html): string {
  return shell(title, null, html`<div class="narrow">${body}</div>`);
}

/** A partner's look, for the white-label pages its clients see (delegation onboarding). */
export interface PageBrand {
  name: string;
  /** https only; the page's CSP must allow `img-src https:`. */
  logoUrl: string | null;
  /** `#rrggbb`; anything else is ignored, as it would be written into the style sheet. */
  accent: string | null;
}

const ACCENT = /^#[0-9a-f]{6}$/;

/**
 * A page in the partner's name, logo and colour instead of the service's look, with
 * "powered by Stories" in small print at the bottom and nowhere else.
 */
export function brandedPage(title: string, brand: PageBrand, body: Html): string {
  const accent = brand.accent && ACCENT.test(brand.accent) ? brand.accent : null;
  const logo = brand.logoUrl && /^https:\/\//i.test(brand.logoUrl) ? brand.logoUrl : null;
  const bar = accent ?? '#ffffff';
  const ink = inkOn(bar);
  const style = `${STYLE}
header.top{background:${bar};color:${ink};border-bottom:1px solid #e2e6ef}
header.top .logo{color:${ink};display:flex;align-items:center;gap:.6rem}
header.top .logo img{display:block;max-height:2.5rem;max-width:14rem}
${accent ? `button:not(.secondary){background:${accent};color:${inkOn(accent)}}` : ''}
footer.powered{text-align:center;padding:0 1rem 2rem;font-size:.75rem;color:#5b6577}
`;
  const top = html`<header class="top"><div class="bar"><span class="logo">${
    logo ? html`<img src="${logo}" alt="${brand.name}" referrerpolicy="no-referrer">` : brand.name
  }</span></div></header>`;
  return documentOf(
    `${title} · ${brand.name}`,
    style,
    top,
    html`<div class="narrow">${body}</div>`,
    html`<footer class="powered">powered by Stories</footer>`,
  );
}

/** Dark or white text, whichever reads better on the colour (WCAG contrast). */
function inkOn(hex: string): '#1d2433' | '#ffffff' {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // #1d2433 has a relative luminance of about 0.017.
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.067 ? '#ffffff' : '#1d2433';
}
