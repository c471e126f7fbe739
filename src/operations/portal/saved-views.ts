import { z } from 'zod';
import { deleteView, listSavedViews, saveView } from '../../domain/saved-views.js';
import { type Actor, signedInPerson } from '../../policy.js';
import { defineOperation } from '../operation.js';
import { Ok } from '../schemas.js';

/** Saved views belong to a person (the portal's searches); a key has none. */
const ownerOf = (actor: Actor) =>
  signedInPerson(actor, 'saved searches belong to people signed in');

/** The search fields a saved view keeps: search_stories' own, in its order. */
export const VIEW_FIELDS = [
  'brand',
  'q',
  'severity',
  'status',
  'from',
  'to',
  'topic',
  'sentiment',
  'language',
  'assignee',
] as const;

/** A search's query string as a view keeps it: its known, non-empty fields only. */
export function viewQuery(fields: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const k of VIEW_FIELDS) {
    const v = fields[k]?.trim();
    if (v) params.set(k, v);
  }
  return params.toString();
}

const ViewRow = z.object({
  id: z.string(),
  name: z.string(),
  query: z.string().describe('the search as a query string of search_stories fields'),
  created_at: z.string(),
});

export const listViews = defineOperation({
  id: 'list_saved_views',
  summary: 'List my saved searches',
  input: z.strictObject({}),
  output: z.object({ views: z.array(ViewRow) }),
  access: {},
  portal: true,
  async handler({ app, actor }) {
    return { views: await listSavedViews(app.db, ownerOf(actor)) };
  },
});

export const saveSearch = defineOperation({
  id: 'save_search',
  summary: 'Save a search under a name',
  input: z.strictObject({
    name: z
      .string()
      .trim()
      .min(1, 'give the search a name')
      .max(60, 'must be at most 60 characters'),
    query: z.string().max(1000, 'is too long'),
  }),
  output: z.object({
    ok: Ok,
    id: z.string(),
    query: z.string().describe('the search as saved: its known, non-empty fields'),
  }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    const query = viewQuery(Object.fromEntries(new URLSearchParams(input.query)));
    const id = await saveView(
      app.db,
      ownerOf(actor),
      { name: input.name, query },
      app.clock.now().toISOString(),
    );
    return { ok: true, id, query };
  },
});

export const deleteSearch = defineOperation({
  id: 'delete_saved_search',
  summary: 'Delete a saved search',
  input: z.strictObject({ id: z.string().min(1).max(40) }),
  output: z.object({ ok: Ok }),
  access: {},
  portal: true,
  async handler({ app, actor }, input) {
    await deleteView(app.db, ownerOf(actor), input.id);
    return { ok: true };
  },
});
