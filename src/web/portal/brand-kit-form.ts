import type { BrandKit } from '../../domain/brand-kit.js';
import { type Html, html } from '../html.js';
import { csrfField } from './layout.js';

/**
 * The brand kit form of the partners page: what the partner's clients see on the
 * onboarding of its invitations. Every field may be left empty to clear it.
 */
export function brandKitForm(csrf: string, kit: BrandKit, accountName: string): Html {
  return html`<h2 id="brand-kit">Brand kit</h2>
<form method="post" action="/app/partners/brand-kit" class="card">${csrfField(csrf)}
<p class="muted small">Your clients see this name, logo and colour on the pages of your invitations, with "powered by Stories" in small print. Leave a field empty to clear it: your account name (${accountName}) and the standard look stand in.</p>
<label for="kit-name">Display name <span class="muted small">(up to 80 characters)</span></label>
<input id="kit-name" name="display_name" type="text" maxlength="80" value="${kit.display_name ?? ''}" placeholder="${accountName}">
<label for="kit-logo">Logo URL <span class="muted small">(https, optional)</span></label>
<input id="kit-logo" name="logo_url" type="url" maxlength="2048" value="${kit.logo_url ?? ''}" placeholder="https://cdn.youragency.com/logo.svg">
<label for="kit-accent">Accent colour <span class="muted small">(#rrggbb, optional)</span></label>
<input id="kit-accent" name="accent_color" type="text" maxlength="7" pattern="#([0-9a-fA-F]{3}){1,2}" value="${kit.accent_color ?? ''}" placeholder="#0a7f5a">
<p><button type="submit">Save the brand kit</button></p></form>`;
}
