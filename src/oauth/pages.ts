import type { Workspace } from '../auth/sign-in.js';
import { html, page } from '../web/html.js';

export interface ClientLabel {
  /** The name the client gives itself: anyone can write any name. */
  name: string;
  /**
   * The host of its client_id, for a client named by a metadata document (an HTTPS URL):
   * the one thing about it that its owner proved, so it is shown before the name.
   */
  documentHost: string | null;
  redirectHost: string;
}

/** How the client is named in headings: by its document's host when it has one. */
const called = (client: ClientLabel) =>
  client.documentHost ? html`${client.documentHost} (“${client.name}”)` : html`${client.name}`;

/**
 * Names the application asking, where its name comes from, and where it will send the
 * browser back to.
 */
const asking = (client: ClientLabel) =>
  client.documentHost
    ? html`<p class="client-host">An application published at <strong>${client.documentHost}</strong> wants to connect to Stories. It calls itself “${client.name}”: only the address <strong>${client.documentHost}</strong> is checked, so connect only if you trust that site${
        client.redirectHost ? html` (it returns to <strong>${client.redirectHost}</strong>)` : ''
      }.</p>`
    : html`<p class="muted"><strong>${client.name}</strong> wants to connect to Stories${
        client.redirectHost ? html` (it returns to <strong>${client.redirectHost}</strong>)` : ''
      }.</p>`;

export function signInPage(uid: string, client: ClientLabel, problem?: string): string {
  return page(
    'Sign in',
    html`<h1>Sign in to Stories</h1>
${asking(client)}
${problem ? html`<p class="error" role="alert">${problem}</p>` : ''}
<form class="card" method="post" action="/oauth/interaction/${uid}/login">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}

export function workspacePage(
  uid: string,
  client: ClientLabel,
  workspaces: Workspace[],
  ticket: string,
): string {
  return page(
    'Choose a team',
    html`<h1>Which team should ${called(client)} act in?</h1>
<form class="card" method="post" action="/oauth/interaction/${uid}/workspace">
<input type="hidden" name="ticket" value="${ticket}">
<fieldset><legend>Your teams</legend>
${workspaces.map(
  (w, i) =>
    html`<label><input type="radio" name="account" value="${w.id}" ${i === 0 ? html`checked` : ''}> ${w.name} <span class="muted">(${w.role})</span></label>`,
)}
</fieldset>
<button type="submit">Continue</button>
</form>`,
  );
}

/** One thing a client may do once allowed: a tool, by its title and name. */
export interface Power {
  name: string;
  title: string;
  changes: boolean;
  destructive: boolean;
}

const powerList = (powers: Power[]) =>
  html`<ul class="powers">${powers.map(
    (p) =>
      html`<li>${p.title} <code>${p.name}</code>${p.destructive ? html` <strong>(removes or replaces what is there)</strong>` : ''}</li>`,
  )}</ul>`;

export function consentPage(
  uid: string,
  client: ClientLabel,
  member: { email: string; workspace: string; role: string },
  powers: Power[],
): string {
  const reads = powers.filter((p) => !p.changes);
  const changes = powers.filter((p) => p.changes);
  return page(
    'Allow access',
    html`<h1>Allow ${called(client)} to use Stories?</h1>
${asking(client)}
<div class="card">
<p>It will act as <strong>${member.email}</strong> in <strong>${member.workspace}</strong> (${member.role}), with your permissions, and can do exactly this:</p>
<h2>Read</h2>
${powerList(reads)}
<h2>Change</h2>
${changes.length > 0 ? powerList(changes) : html`<p class="muted">Nothing: it can only read.</p>`}
<p><strong>It never spends money.</strong> Unlocking an advisory uses your team's included monthly unit; when none is left, it gets a link for you to buy one yourself.</p>
<p class="muted">You can revoke this access at any time under Connected apps in the portal.</p>
</div>
<form method="post" action="/oauth/interaction/${uid}/consent">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</form>`,
  );
}

export function errorPage(message: string): string {
  return page(
    'Sign-in problem',
    html`<h1>This sign-in cannot go on</h1><div class="card"><p>${message}</p></div>`,
  );
}
