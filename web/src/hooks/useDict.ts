/**
 * Dictionary entries for select boxes (`GET dict/dictionary?code=`), fetched once per code and
 * page load: the many selects of the admin screens share a handful of dictionaries that change
 * rarely. A failed fetch is forgotten, so the next use tries again.
 */
import { useEffect, useState } from 'react'
import { getDictionary, type DictEntry } from '../api/system/dict'

const cache = new Map<string, Promise<DictEntry[]>>()

export function loadDict(code: string): Promise<DictEntry[]> {
  let entries = cache.get(code)
  if (!entries) {
    entries = getDictionary(code)
    cache.set(code, entries)
    entries.catch(() => cache.delete(code))
  }
  return entries
}

/** Forgets every cached dictionary (tests; after editing a dictionary). */
export function clearDictCache(): void {
  cache.clear()
}

/** The entries of dictionary `code` ([] until loaded or when it fails). */
export function useDict(code: string): DictEntry[] {
  const [loaded, setLoaded] = useState<{ code: string; entries: DictEntry[] } | null>(null)
  useEffect(() => {
    let live = true
    loadDict(code).then(
      (entries) => live && setLoaded({ code, entries }),
      () => undefined, // shown by the request client
    )
    return () => {
      live = false
    }
  }, [code])
  return loaded?.code === code ? loaded.entries : []
}
