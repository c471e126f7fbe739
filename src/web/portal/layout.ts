import { Html, html } from '../html.js';
import type { PortalSession } from './session.js';

/**
 * The portal's look: one stylesheet inline (the CSP allows inline styles and no
 * scripts), a top bar with the sections and the account switcher, and the page. Works
 * without JavaScript; every action is a form.
 */
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1d2433;background:#f6f7fb}
a{color:#1f4fd1}a:focus,button:focus,input:focus,select:focus,textarea:focus{outline:3px solid #9db5ff;outline-offset:1px}
header.top{background:#101828;color:#fff}
header.top .bar{max-width:76rem;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;align-items:center}
header.top .logo{font-weight:700;font-size:1.1rem;color:#fff;text-decoration:none;margin-right:.5rem}
header.top nav{display:flex;flex-wrap:wrap;gap:.25rem}
header.top nav a{color:#cfd6e4;text-decoration:none;padding:.3rem .6rem;border-radius:6px}
header.top nav a[aria-current=page]{background:#24324d;color:#fff}
header.top .me{margin-left:auto;display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
header.top select,header.top button{font:inherit;font-size:.85rem;padding:.25rem .5rem;border-radius:6px;border:1px solid #3a4763;background:#1b2740;color:#fff}
main{max-width:76rem;margin:0 auto;padding:1.5rem 1rem 4rem}
h1{font-size:1.5rem;margin:.2rem 0 1rem}h2{font-size:1.15rem;margin:1.5rem 0 .5rem}
.card{background:#fff;border:1px solid #e2e6ef;border-radius:10px;padding:1.1rem 1.25rem;margin:0 0 1rem}
.grid{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr))}
table{width:100%;border-collapse:collapse;background:#fff;border:1px solid #e2e6ef;border-radius:10px;overflow:hidden}
th,td{text-align:left;padding:.55rem .75rem;border-bottom:1px solid #eef1f6;vertical-align:top}
th{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:#5b6577;background:#fafbfd}
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
form.inline{display:inline}form.row{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
form.row label{margin:0}.filters{margin:0 0 1rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0}dl.facts dt{font-weight:600}
ol.plan>li{margin:0 0 .75rem}
code.secret{display:block;padding:.6rem;background:#101828;color:#9ff3b5;border-radius:6px;word-break:break-all}
.auth{max-width:26rem;margin:3rem auto}
del{background:#fde2e1}ins{background:#e7f6ec;text-decoration:none}
@media (max-width:40rem){th:nth-child(n+4),td:nth-child(n+4){display:none}}
`;

function shell(title: string, top: Html, body: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Stories</title>
<style>${new Html(STYLE)}</style>
</head>
<body>
${top}
<main id="main">
${body}
</main>
</body>
</html>`.value;
}

/** Sections of the portal, in the order of the top bar. */
export const SECTIONS = [
  ['stories', '/app', 'Stories'],
  ['brands', '/app/brands', 'Brands'],
  ['team', '/app/team', 'Team'],
  ['keys', '/app/keys', 'API keys'],
  ['partners', '/app/partners', 'Partners'],
  ['webhooks', '/app/webhooks', 'Webhooks'],
  ['billing', '/app/billing', 'Billing'],
  ['activity', '/app/activity', 'Activity'],
] as const;
export type Section = (typeof SECTIONS)[number][0];

/** A hidden anti-forgery field: every form of the portal carries it. */
export const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`;

/** A page of the signed-in portal. */
export function appPage(
  view: { session: PortalSession; csrf: string; section: Section | null },
  title: string,
  body: Html,
): string {
  const { session, csrf } = view;
  const top = html`<header class="top"><div class="bar">
<a class="logo" href="/app">Stories</a>
<nav aria-label="Sections">${SECTIONS.map(
    ([id, href, label]) =>
      html`<a href="${href}"${id === view.section ? html` aria-current="page"` : ''}>${label}</a>`,
  )}</nav>
<div class="me">
${
  session.workspaces.length > 1
    ? html`<form class="inline" method="post" action="/app/switch">${csrfField(csrf)}
<label class="muted small" for="account-switch" style="display:inline;color:#cfd6e4">Account</label>
<select id="account-switch" name="account">${session.workspaces.map(
        (w) =>
          html`<option value="${w.id}"${w.id === session.account.id ? html` selected` : ''}>${w.name}</option>`,
      )}</select>
<button type="submit">Switch</button></form>`
    : html`<span class="small">${session.account.name}</span>`
}
<span class="small" title="${session.account.role}">${session.email}</span>
<form class="inline" method="post" action="/signout">${csrfField(csrf)}<button type="submit">Sign out</button></form>
</div></div></header>`;
  return shell(title, top, body);
}

/** A page outside the signed-in portal (sign-in, sign-up, reset). */
export function publicPage(title: string, body: Html): string {
  const top = html`<header class="top"><div class="bar"><a class="logo" href="/">Stories</a></div></header>`;
  return shell(title, top, html`<div class="auth">${body}</div>`);
}

/** Flash texts a redirect may name with `?done=`; nothing else reaches the page. */
export const NOTICES: Record<string, string> = {
  queued: 'The article is being read: its story appears here in a moment.',
  unlocked: 'The advisory is unlocked.',
  assigned: 'Assigned.',
  unassigned: 'Assignment removed.',
  done: 'Phase marked done.',
  context: 'Context added: a proposal is being prepared.',
  applied: 'The proposal is applied.',
  dismissed: 'The proposal is dismissed.',
  note: 'The Brand Note is published.',
  'note-deleted': 'The Brand Note is deleted.',
  shared: 'Share settings saved.',
  'key-revoked': 'The key is revoked.',
  brand: 'Brand added.',
  source: 'Source added.',
  'source-removed': 'Source removed.',
  aliases: 'Aliases saved.',
  invited: 'Invitation sent.',
  retried: 'The delivery is being sent again.',
  'partner-revoked': 'The partner no longer acts on that brand.',
  'client-dropped': 'The client brand is dropped.',
  switched: 'Switched account.',
};

export function notice(done: unknown): Html | '' {
  const text = typeof done === 'string' ? NOTICES[done] : undefined;
  return text ? html`<p class="notice" role="status">${text}</p>` : '';
}

export function problem(text: string | undefined): Html | '' {
  return text ? html`<p class="error" role="alert">${text}</p>` : '';
}
