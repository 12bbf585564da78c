/** The messages page's logic, free of React. */
import type { PageQuery } from '../../../api/types'

export type ReadFilter = 'all' | 'unread' | 'read'

/** The list call's params: paging, and `isRead` 0/1 unless all are asked for. */
export function messageQuery(filter: ReadFilter, current: number, size: number): PageQuery {
  const query: PageQuery = { current, size }
  if (filter === 'unread') query.isRead = 0
  if (filter === 'read') query.isRead = 1
  return query
}

/** Ids of the unread messages among `records` (what "mark read" on a selection sends). */
export const unreadIds = (records: readonly { id: string; isRead: boolean }[]): string[] =>
  records.filter((m) => !m.isRead).map((m) => m.id)
