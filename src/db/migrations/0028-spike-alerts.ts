import type { Kysely } from 'kysely';

/**
 * Issue 43. On `alert_rules`: 1 when the rule also alerts when one of its brands' mentions
 * spike (domain/mention-spikes.ts), on the rule's channels; such an alert's `story_id` is
 * the spike's (`spike:<audit id>`), so (rule, spike) is told once, as (rule, story) is.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('alert_rules')
    .addColumn('on_spike', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
