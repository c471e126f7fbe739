import { type Html, html, shell } from '../html.js';
import type { PortalSession } from './session.js';

/** Sections of the portal, in the order of the top bar. */
export const SECTIONS = [
  ['overview', '/app', 'Overview'],
  ['stories', '/app/stories', 'Stories'],
  ['alerts', '/app/alerts', 'Alerts'],
  ['brands', '/app/brands', 'Brands'],
  ['team', '/app/team', 'Team'],
  ['keys', '/app/keys', 'API keys'],
  ['partners', '/app/partners', 'Partners'],
  ['webhooks', '/app/webhooks', 'Webhooks'],
  ['billing', '/app/billing', 'Billing'],
  ['activity', '/app/activity', 'Activity'],
  ['apps', '/app/connected-apps', 'Connected apps'],
] as const;
export type Section = (typeof SECTIONS)[number][0];

/** Sections only owners and admins work in: a member's top bar leaves them out. */
const ADMIN_SECTIONS: readonly Section[] = ['keys', 'webhooks', 'billing'];

/**
 * A moment as the portal shows it, to the minute, or nothing: in UTC, said so, and in the
 * reader's own time zone once the portal's script (live.ts) has read the browser's.
 */
export const when = (iso: string | null | undefined) =>
  iso ? html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')} UTC</time>` : '';

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
<button type="button" class="menu-toggle" aria-expanded="false" aria-controls="menu">Menu</button>
<div class="menu" id="menu">
<nav aria-label="Sections">${SECTIONS.filter(
    ([id]) => session.account.role !== 'member' || !ADMIN_SECTIONS.includes(id),
  ).map(
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
<a class="small profile" href="/app/profile" title="Your profile (${session.account.role})">${session.name ?? session.email}</a>
<form class="inline" method="post" action="/signout">${csrfField(csrf)}<button type="submit">Sign out</button></form>
</div></div></div></header>`;
  return shell(
    title,
    top,
    html`${trialBanner(session)}${body}<script src="/app/live.js" defer></script>`,
    session.timeZone,
  );
}

/** The running reclaim trial of the account, on every page for its users. */
function trialBanner(session: PortalSession): Html | '' {
  const trial = session.account.trial;
  if (!trial) return '';
  const days = `${trial.daysLeft} day${trial.daysLeft === 1 ? '' : 's'}`;
  return html`<p class="notice" role="status" id="trial-banner">Trial of the ${trial.plan} plan: ${days} left (ends ${trial.endsAt.slice(0, 10)}). Afterwards the account continues on its own plan; nothing is deleted.</p>`;
}

/** A page outside the signed-in portal (sign-in, sign-up, reset): a narrow form. */
export function publicPage(title: string, body: Html): string {
  return shell(title, null, html`<div class="auth">${body}</div>`);
}

/** Flash texts a redirect may name with `?done=`; nothing else reaches the page. */
export const NOTICES: Record<string, string> = {
  'app-revoked': 'Access taken back: that application can no longer act as you.',
  unlocked: 'The advisory is unlocked.',
  assigned: 'Assigned.',
  unassigned: 'Assignment removed.',
  done: 'Phase marked done.',
  due: 'Due date saved.',
  context: 'Context added: a proposal is being prepared.',
  applied: 'The proposal is applied.',
  dismissed: 'The proposal is dismissed.',
  closed: 'The story is closed: no new article joins it.',
  reopened: 'The story is open again.',
  note: 'The Brand Note is published.',
  'note-deleted': 'The Brand Note is deleted.',
  shared: 'Share settings saved.',
  'share-stopped':
    'The story is no longer shared: its link and its guests’ links answer “not found”.',
  'share-reenabled': 'The share is yours and serves again.',
  'guest-added': 'Guest added: they sign in on the share page with their email.',
  'guest-removed': 'Guest removed.',
  'key-revoked': 'The key is revoked.',
  brand: 'Brand added.',
  'brand-deleted': 'The brand and everything monitored for it are deleted.',
  source: 'Source added.',
  'source-removed': 'Source removed.',
  connector: 'Connector switched.',
  'connector-targets': 'Saved: the connector reads them from its next search.',
  aliases: 'Aliases saved.',
  match: 'Recognition saved: it applies to articles read from now on.',
  'verify-sent': 'The verification link is sent: open it from that mailbox.',
  verified: 'The brand is verified.',
  claimed: 'The brand is yours now, verified: the team that had added it was told.',
  invited: 'Invitation sent.',
  role: 'Role changed.',
  removed: 'Removed from the team: their access ended and their seat is free.',
  'invite-cancelled': 'The invitation is cancelled and its seat is free.',
  'invite-resent': 'A new invitation email is on its way (its link works for 7 days).',
  retried: 'The delivery is being sent again.',
  'webhook-paused': 'The endpoint is paused: events of the pause are not sent to it, even later.',
  'webhook-resumed': 'The endpoint is active again: new events are sent to it.',
  'webhook-deleted': 'The endpoint and its delivery log are deleted.',
  'partner-revoked': 'The partner no longer acts on that brand.',
  'client-dropped':
    'The client brand is dropped: you no longer act on it. Another partner still manages the client’s account.',
  'client-dropped-handed-back':
    'The client brand is dropped: you no longer act on it. It went back to the client, with a 7-day trial of the partner plan.',
  'invite-revoked': 'The invitation is revoked.',
  'brand-kit': 'Brand kit saved: your invitations show it now.',
  switched: 'Switched account.',
  joined: 'Welcome: you are in the team and signed in.',
  'view-saved': 'Search saved: it is under Saved searches.',
  'rule-added': 'Alert rule added: matching stories are sent from now on.',
  'rule-paused': 'The rule is paused: it sends nothing until resumed.',
  'rule-resumed': 'The rule is active again.',
  'rule-deleted': 'The rule is deleted; the alerts it sent stay listed.',
  quiet: 'Quiet hours saved.',
  digest: 'Digest saved.',
  'view-deleted': 'Saved search deleted.',
  profile: 'Profile saved.',
  password: 'Password changed: every other browser and device signed in as you is signed out.',
};

export function notice(done: unknown): Html | '' {
  const text = typeof done === 'string' && Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined;
  return text ? html`<p class="notice" role="status">${text}</p>` : '';
}

export function problem(text: string | undefined): Html | '' {
  return text ? html`<p class="error" role="alert">${text}</p>` : '';
}

/** A page that could not be shown: its heading, why, and the way back. */
export function problemPage(
  view: Parameters<typeof appPage>[0],
  page: { title: string; heading: string },
  text: string,
  back: { href: string; label: string },
): string {
  return appPage(
    view,
    page.title,
    html`<h1>${page.heading}</h1>${problem(text)}<p><a href="${back.href}">${back.label}</a></p>`,
  );
}
