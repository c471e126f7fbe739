import type { AppContext } from '../context.js';
import { grantsOf, revokeGrantsOf } from '../db/oauth-store.js';
import { notFound } from '../errors.js';
import { subjectOf } from '../oauth/subject.js';

/** A signed-in member's OAuth clients (MCP hosts such as Claude or Cursor), newest first. */
export async function listConnectedApps(app: AppContext, accountId: string, userId: string) {
  const grants = await grantsOf(app.db, subjectOf(accountId, userId), app.clock.now());
  return grants
    .map((g) => ({
      client_id: g.clientId,
      // A client named by its metadata document is not stored (the library keeps it for
      // the document's max-age): its URL's host says who it is.
      name: g.clientName ?? documentHost(g.clientId) ?? 'Unnamed application',
      redirect_host: redirectHost(g.redirectUris) || (documentHost(g.clientId) ?? ''),
      connected_at: g.connectedAt,
      last_used_at: g.lastUsedAt,
    }))
    .sort((a, b) => b.connected_at.localeCompare(a.connected_at));
}

const documentHost = (clientId: string) =>
  clientId.startsWith('https://') && URL.canParse(clientId) ? new URL(clientId).host : undefined;

/** Where the client sends the browser back to: a host, or a private-use scheme (cursor:). */
function redirectHost(uris: string[]): string {
  const first = uris[0];
  if (!first) return '';
  try {
    const url = new URL(first);
    return url.host || url.protocol;
  } catch {
    return '';
  }
}

/** Takes a client's access back: its tokens stop working at once. */
export async function revokeConnectedApp(
  app: AppContext,
  accountId: string,
  userId: string,
  clientId: string,
) {
  if (!(await revokeGrantsOf(app.db, subjectOf(accountId, userId), clientId))) {
    throw notFound();
  }
}
