import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { clearStore, getStore, getStoreEntry, removeStore, setStore } from './storage'

beforeEach(() => {
  localStorage.clear()
  sessionStorage.clear()
})

afterEach(() => {
  vi.useRealTimers()
})

describe('storage', () => {
  it('prefixes keys with the site key and stores {dataType, content, type, datetime}', () => {
    vi.useFakeTimers({ now: new Date('2026-01-02T03:04:05Z') })
    setStore('token', 'abc')
    expect(localStorage.getItem('token')).toBeNull()
    expect(JSON.parse(localStorage.getItem('pv-token')!)).toEqual({
      dataType: 'string',
      content: 'abc',
      type: 'local',
      datetime: Date.parse('2026-01-02T03:04:05Z'),
    })
  })

  it('keeps the type of numbers, booleans and objects', () => {
    setStore('n', 42)
    setStore('b', false)
    setStore('o', { a: [1, 2] })
    expect(getStore('n')).toBe(42)
    expect(getStore('b')).toBe(false)
    expect(getStore('o')).toEqual({ a: [1, 2] })
    expect(getStoreEntry('o')?.dataType).toBe('object')
    expect(getStoreEntry('b')?.dataType).toBe('boolean')
  })

  it('writes session entries to sessionStorage, and reads them first', () => {
    setStore('lock', 'local value')
    setStore('lock', 'session value', 'session')
    expect(JSON.parse(sessionStorage.getItem('pv-lock')!)).toMatchObject({ type: 'session' })
    expect(getStore('lock')).toBe('session value')
  })

  it('returns undefined for missing or foreign entries', () => {
    expect(getStore('missing')).toBeUndefined()
    localStorage.setItem('pv-raw', 'not json')
    expect(getStore('raw')).toBeUndefined()
  })

  it('removes an entry from both areas', () => {
    setStore('x', 1)
    setStore('x', 2, 'session')
    removeStore('x')
    expect(localStorage.getItem('pv-x')).toBeNull()
    expect(sessionStorage.getItem('pv-x')).toBeNull()
  })

  it('clears only prefixed entries', () => {
    setStore('a', 1)
    setStore('b', 2)
    localStorage.setItem('other-app', 'keep')
    clearStore('local')
    expect(localStorage.length).toBe(1)
    expect(localStorage.getItem('other-app')).toBe('keep')
  })
})
