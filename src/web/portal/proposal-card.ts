import type { z } from 'zod';
import { applyAdvisoryProposal } from '../../operations/advisory/apply-advisory-proposal.js';
import { dismissAdvisoryProposal } from '../../operations/advisory/dismiss-advisory-proposal.js';
import { mayRun } from '../../operations/execute.js';
import type { AdvisoryPending } from '../../operations/shapes.js';
import type { Actor } from '../../policy.js';
import { type Html, html } from '../html.js';
import { csrfField } from './layout.js';

/** What the card needs of the page: where the story's forms post, and for whom. */
export interface ProposalCardContext {
  /** The story page's path; its actions post to `<path>/<action>`. */
  path: string;
  csrf: string;
  /** Who reads it: the apply and dismiss forms are theirs only if the operations allow. */
  actor: Actor;
}

/**
 * The pending proposal, at the top of the story page while one exists. While it is being
 * prepared (the advisor takes up to a minute or two) the card says so and the portal's
 * script (live.ts) asks `<path>/proposal` until it is ready, then puts the ready card,
 * the same HTML as a fresh page would show, in its place.
 */
export function proposalCard(
  pending: z.input<typeof AdvisoryPending>,
  c: ProposalCardContext,
): Html {
  if (pending.status !== 'ready') {
    return html`<div class="card notice" id="proposal" data-live="${c.path}/proposal" aria-live="polite">
<p><strong>A proposed update of the advisory is being prepared</strong> from the context “${pending.context}”.</p>
<p class="small muted"><span data-live-state>It usually takes under a minute.</span> It appears here when it is ready; nothing changes until it is applied. <a href="${c.path}">Check again</a></p></div>`;
  }
  const form = (action: string, label: string, cls = '') =>
    html`<form class="inline" method="post" action="${c.path}/${action}">${csrfField(c.csrf)}<button type="submit"${cls ? html` class="${cls}"` : ''}>${label}</button></form>`;
  return html`<div class="card" id="proposal"><h2>Proposed update of the advisory</h2>
<p>From the context “${pending.context}”.</p>
${
  pending.diff
    ? html`<table><thead><tr><th scope="col">Field</th><th scope="col">Now</th><th scope="col">Proposed</th></tr></thead><tbody>${pending.diff.map(
        (d) =>
          html`<tr><td>${d.path}</td><td><del>${JSON.stringify(d.before) ?? ''}</del></td><td><ins>${JSON.stringify(d.after) ?? ''}</ins></td></tr>`,
      )}</tbody></table>`
    : ''
}
<p>${mayRun(c.actor, applyAdvisoryProposal) ? form('apply', 'Apply the proposal') : html`<span class="muted small">An owner applies it.</span>`} ${mayRun(c.actor, dismissAdvisoryProposal) ? form('dismiss', 'Dismiss', 'secondary') : ''}</p></div>`;
}
