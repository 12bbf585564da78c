import { describe, expect, it } from 'vitest'
import { readFlag } from '../../../api/alarm/message'
import { messageQuery, unreadIds } from './logic'

describe('messages', () => {
  it('asks for unread (0), read (1) or all', () => {
    expect(messageQuery('all', 1, 10)).toEqual({ current: 1, size: 10 })
    expect(messageQuery('unread', 2, 30)).toEqual({ current: 2, size: 30, isRead: 0 })
    expect(messageQuery('read', 1, 10).isRead).toBe(1)
  })

  it('marks only unread ones of a selection', () => {
    const records = [
      { id: 'a', isRead: false },
      { id: 'b', isRead: true },
      { id: 'c', isRead: false },
    ]
    expect(unreadIds(records)).toEqual(['a', 'c'])
  })

  it('reads isRead as the server may send it', () => {
    expect([1, '1', true, 'true'].map(readFlag)).toEqual([true, true, true, true])
    expect([0, '0', false, null, undefined].map(readFlag)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ])
  })
})
