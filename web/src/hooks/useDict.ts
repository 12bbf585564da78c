/**
 * Dictionary entries for select boxes, through the query client (`dictionaryQuery`: fetched once
 * per code and page load, shared by every select).
 */
import { useQuery } from '@tanstack/react-query'
import type { DictEntry } from '../api/system/dict'
import { dictionaryQuery, systemKeys } from '../api/system/queries'
import { queryClient } from '../api/queryClient'

/** The entries of dictionary `code`, from the cache when some screen already read them. */
export function loadDict(code: string): Promise<DictEntry[]> {
  return queryClient.fetchQuery(dictionaryQuery(code))
}

/** Forgets every cached dictionary (tests; after editing a dictionary). */
export function clearDictCache(): void {
  queryClient.removeQueries({ queryKey: systemKeys.dictionaries })
}

const none: DictEntry[] = []

/** The entries of dictionary `code` ([] until loaded or when it fails). */
export function useDict(code: string): DictEntry[] {
  return useQuery(dictionaryQuery(code)).data ?? none
}
