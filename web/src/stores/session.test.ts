import { beforeEach, describe, expect, it } from 'vitest'
import type { TokenResponse } from '../api/auth'
import { getStore, getStoreEntry, setStore } from '../utils/storage'
import { useSessionStore } from './session'
import { homeTab, useTabsStore } from './tabs'

const token = (userId: string): TokenResponse => ({
  access_token: `at-${userId}`,
  refresh_token: `rt-${userId}`,
  token_type: 'bearer',
  expires_in: 3600,
  tenant_id: '000000',
  user_id: userId,
  user_name: 'admin',
  account: 'admin',
  nick_name: 'Admin',
  role_id: '1',
  role_name: 'administrator',
  dept_id: '1',
  avatar: '',
})

beforeEach(() => {
  localStorage.clear()
  sessionStorage.clear()
  useSessionStore.getState().logout()
})

describe('session', () => {
  it('sign-in stores tokens with the site prefix and entry shape, resets tabs and the lock', () => {
    useTabsStore.getState().open({ ...homeTab, value: '/a', label: 'a' })
    useSessionStore.getState().setLockPasswd('pw')
    useSessionStore.getState().lock()
    useSessionStore.getState().signIn(token('1'))
    const s = useSessionStore.getState()
    expect(s.token).toBe('at-1')
    expect(s.userInfo?.user_id).toBe('1')
    expect(s.isLock).toBe(false)
    expect(useTabsStore.getState().tabs.map((t) => t.value)).toEqual([homeTab.value])
    const entry = JSON.parse(localStorage.getItem('pv-token') ?? '{}') as Record<string, unknown>
    expect(entry).toMatchObject({ dataType: 'string', content: 'at-1', type: 'local' })
    expect(typeof entry.datetime).toBe('number')
  })

  it('clears station and inverter selections only when another user signs in', () => {
    useSessionStore.getState().signIn(token('1'))
    setStore('stationId', 's1')
    setStore('inverterId', 'i1')
    useSessionStore.getState().logout()
    useSessionStore.getState().signIn(token('1'))
    expect(getStore('stationId')).toBe('s1')
    useSessionStore.getState().signIn(token('2'))
    expect(getStore('stationId')).toBeUndefined()
    expect(getStore('inverterId')).toBeUndefined()
  })

  it('the lock is session-scoped and unlocks only with its password', () => {
    useSessionStore.getState().signIn(token('1'))
    useSessionStore.getState().setLockPasswd('secret')
    useSessionStore.getState().lock()
    expect(getStoreEntry('isLock')?.type).toBe('session')
    expect(sessionStorage.getItem('pv-lockPasswd')).not.toBeNull()
    expect(localStorage.getItem('pv-isLock')).toBeNull()
    expect(useSessionStore.getState().unlock('wrong')).toBe(false)
    expect(useSessionStore.getState().isLock).toBe(true)
    expect(useSessionStore.getState().unlock('secret')).toBe(true)
    expect(useSessionStore.getState().isLock).toBe(false)
  })

  it('logout clears tokens, menu, permissions, tabs and the lock', () => {
    useSessionStore.getState().signIn(token('1'))
    useSessionStore.getState().setMenu([{ id: '1', name: 'x' }])
    useSessionStore.getState().setPermission({ a: true })
    useSessionStore.getState().setLockPasswd('p')
    useSessionStore.getState().lock()
    useSessionStore.getState().logout()
    const s = useSessionStore.getState()
    expect([s.token, s.menu, s.permission, s.isLock, s.menuLoaded]).toEqual([
      '',
      [],
      {},
      false,
      false,
    ])
    expect(localStorage.getItem('pv-token')).toBeNull()
    expect(localStorage.getItem('pv-menu')).toBeNull()
    expect(sessionStorage.getItem('pv-isLock')).toBeNull()
  })
})
