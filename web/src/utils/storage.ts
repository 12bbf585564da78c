import { website } from '../config/website'

/**
 * Browser storage helper. Every key is prefixed with the site key (`pv-`), and every entry is stored
 * as `{dataType, content, type, datetime}` (prefixed by the site key): `dataType` is `typeof content`, `type` says
 * whether the entry lives in sessionStorage, `datetime` is when it was written (ms since epoch; the
 * token refresh timer reads it to know the token's age).
 */
export type StorageType = 'session' | 'local'

export interface StoredEntry<T = unknown> {
  dataType: string
  content: T
  type: StorageType
  datetime: number
}

export const keyPrefix = `${website.key}-`

const area = (type: StorageType): Storage =>
  type === 'session' ? window.sessionStorage : window.localStorage

export function setStore<T>(name: string, content: T, type: StorageType = 'local'): void {
  const entry: StoredEntry<T> = { dataType: typeof content, content, type, datetime: Date.now() }
  area(type).setItem(keyPrefix + name, JSON.stringify(entry))
}

/** The whole entry (session storage first, then local), or undefined when absent or unreadable. */
export function getStoreEntry<T>(name: string): StoredEntry<T> | undefined {
  const raw =
    window.sessionStorage.getItem(keyPrefix + name) ?? window.localStorage.getItem(keyPrefix + name)
  if (raw === null) return undefined
  try {
    const parsed: unknown = JSON.parse(raw)
    if (parsed !== null && typeof parsed === 'object' && 'content' in parsed) {
      return parsed as StoredEntry<T>
    }
  } catch {
    // Not written by setStore: treat as absent rather than crash the console.
  }
  return undefined
}

export function getStore<T>(name: string): T | undefined {
  return getStoreEntry<T>(name)?.content
}

/** Removes the entry from both areas. */
export function removeStore(name: string): void {
  window.sessionStorage.removeItem(keyPrefix + name)
  window.localStorage.removeItem(keyPrefix + name)
}

/** Removes every prefixed entry of one area; other sites' keys on the same origin are left alone. */
export function clearStore(type: StorageType): void {
  const storage = area(type)
  const keys: string[] = []
  for (let i = 0; i < storage.length; i++) {
    const key = storage.key(i)
    if (key?.startsWith(keyPrefix)) keys.push(key)
  }
  keys.forEach((key) => storage.removeItem(key))
}
