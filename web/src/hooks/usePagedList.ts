/**
 * The state of a paged list screen (search values, page, page size) over one `useQuery`: the
 * rows of the previous query stay on screen while the next one loads, and when a load fails (the
 * request client has shown why) the rows shown so far stay. `go` changes the state and always
 * loads: searching again with the same values, or `reload()` after a change, asks the hub again.
 */
import {
  hashKey,
  keepPreviousData,
  useQuery,
  type QueryKey,
  type UseQueryOptions,
  type UseQueryResult,
} from '@tanstack/react-query'
import { useState } from 'react'
import { emptyPage, type Page } from '../api/types'

export interface Paging {
  current: number
  size: number
}

export interface PagedList<S extends Paging, T> {
  list: S
  /** Changes the state without forcing a load (the query follows the new state). */
  setList: (update: (prev: S) => S) => void
  /** Changes the state and loads (also when nothing changed: a reload). */
  go: (next?: Partial<S>) => void
  page: Page<T>
  /** A load for the current state is under way. */
  loading: boolean
  query: UseQueryResult<Page<T>>
}

export function usePagedList<S extends Paging, T, K extends QueryKey>(
  initial: S,
  build: (list: S) => UseQueryOptions<Page<T>, Error, Page<T>, K>,
): PagedList<S, T> {
  const [list, setList] = useState<S>(initial)
  const options = build(list)
  const query = useQuery({ ...options, placeholderData: keepPreviousData })
  const [shown, setShown] = useState<Page<T> | undefined>(undefined)
  if (query.data !== undefined && query.data !== shown) setShown(query.data)

  const go = (next: Partial<S> = {}) => {
    const nextList = { ...list, ...next }
    setList(() => nextList)
    // The same query: load it again (a changed one loads by itself).
    if (hashKey(build(nextList).queryKey) === hashKey(options.queryKey)) void query.refetch()
  }

  return {
    list,
    setList,
    go,
    page: query.data ?? shown ?? emptyPage<T>(list.size),
    loading: query.isFetching,
    query,
  }
}
