/**
 * An OAuth subject is a membership: one user acting in one account. A person in several
 * accounts picks one when signing in, and the token acts there only.
 */
export const subjectOf = (accountId: string, userId: string) => `${accountId}:${userId}`;

export function parseSubject(sub: string): { accountId: string; userId: string } | null {
  const [accountId, userId, extra] = sub.split(':');
  return accountId && userId && extra === undefined ? { accountId, userId } : null;
}
