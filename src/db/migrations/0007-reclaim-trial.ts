import { type Kysely, sql } from 'kysely';

/**
 * Issue 13: the plan a handed-back client account works with until `trial_ends_at` (its
 * reclaim trial), which account set each share's settings and invited each guest, so the
 * shares a partner made or retuned on a client brand stop with its delegation
 * (`suspended_at`) until the client re-enables them, and the guests it invited leave.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const s = db.schema;
  await s.alterTable('accounts').addColumn('trial_plan', 'text').execute();
  // Accounts already handed back keep the trial they were promised.
  await sql`update accounts set trial_plan = 'partner'
    where state = 'handed_back' and trial_ends_at is not null`.execute(db);

  await s.alterTable('shares').addColumn('set_by_account_id', 'text').execute();
  await s.alterTable('shares').addColumn('suspended_at', 'text').execute();
  await s.alterTable('share_guests').addColumn('added_by_account_id', 'text').execute();
  // Existing shares: the partner whose key or user last created or retuned the share on a
  // brand it held a delegation of, else the brand's own account.
  await sql`update shares set set_by_account_id = coalesce(
    (select d.partner_account_id
       from audit_log a
       join stories st on st.id = a.story_id
       join delegations d on d.brand_id = st.brand_id
       left join api_keys k on a.actor = 'key:' || k.id
       left join memberships m on a.actor = 'user:' || m.user_id
      where a.story_id = shares.story_id and a.action in ('share.created', 'share.retuned')
        and a.created_at = (select max(l.created_at) from audit_log l
          where l.story_id = shares.story_id and l.action in ('share.created', 'share.retuned'))
        and (k.account_id = d.partner_account_id or m.account_id = d.partner_account_id)
      limit 1),
    (select b.account_id from stories st join brands b on b.id = st.brand_id
      where st.id = shares.story_id))`.execute(db);
  // A partner's share on a brand it no longer holds an active delegation of has already
  // outlived that delegation: it stops now, as it would have when the delegation ended.
  await sql`update shares set suspended_at = ${new Date().toISOString()}
    where set_by_account_id <> (select b.account_id from stories st
        join brands b on b.id = st.brand_id where st.id = shares.story_id)
      and not exists (select 1 from stories st join delegations d on d.brand_id = st.brand_id
        where st.id = shares.story_id and d.partner_account_id = shares.set_by_account_id
          and d.status = 'active')`.execute(db);
  await s.createIndex('shares_by_setter').on('shares').column('set_by_account_id').execute();
}
