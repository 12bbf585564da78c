/**
 * The console's one TanStack Query client: every read of the hub goes through `useQuery` with the
 * keys of `src/api/<domain>/queries.ts`, every write that changes a list through `useMutation` or
 * an invalidation of those keys.
 *
 * Defaults, and why:
 * - refetch when the window regains focus (an operator coming back sees current data); polling
 *   (`refetchInterval`, the live screens) stops while the tab is hidden;
 * - retries only for failures nobody has shown yet (network, time-out, HTTP above 500), at most
 *   twice: a 4xx (or a body code) is an answer, and the request client has already toasted it, so
 *   a retry would only repeat the call and the toast;
 * - failures are reported here, once: what the request client showed (or was told to keep quiet)
 *   is not shown again; a network failure gets one toast, unless the query shows its own error
 *   state (`meta: { ownErrorState: true }`, the live screens); anything else (a bug in a loader) is
 *   toasted as an unknown error and kept in the local error log.
 */
import { MutationCache, QueryCache, QueryClient, type QueryKey } from '@tanstack/react-query'
import i18n from '../locales/i18n'
import { toLogEntry, useErrorLogStore } from '../utils/errorLog'
import { notifyError, RequestError, shownByRequestClient } from './request'

declare module '@tanstack/react-query' {
  interface Register {
    queryMeta: QueryMeta
    mutationMeta: QueryMeta
  }
}

export interface QueryMeta extends Record<string, unknown> {
  /** The screen shows this query's failure itself (live data with its "stale" hint). */
  ownErrorState?: boolean
}

/** At most this many retries, and only of failures nobody has shown. */
export const maxRetries = 2

export function shouldRetry(failureCount: number, error: unknown): boolean {
  return failureCount < maxRetries && error instanceof RequestError && !shownByRequestClient(error)
}

/** The text to toast for a failed query or mutation, or null when there is nothing to show. */
export function unshownErrorText(error: unknown, meta?: QueryMeta): string | null {
  if (shownByRequestClient(error) || meta?.ownErrorState) return null
  if (error instanceof RequestError) return i18n.t('request.networkError')
  return i18n.t('request.unknownError')
}

/** The same text twice within this many ms is one toast (several queries of a screen failing). */
export const repeatWindowMs = 3000

export interface ErrorReporter {
  (error: unknown, meta?: QueryMeta, key?: QueryKey): void
}

export function errorReporter(
  notify: (text: string) => void = notifyError,
  now: () => number = Date.now,
): ErrorReporter {
  let last = { text: '', at: -Infinity }
  return (error, meta, key) => {
    const text = unshownErrorText(error, meta)
    if (text === null) return
    if (!(error instanceof RequestError)) {
      const where = key ? `query ${JSON.stringify(key)}` : 'mutation'
      useErrorLogStore.getState().add(toLogEntry(error, where, window.location.href))
    }
    if (text === last.text && now() - last.at < repeatWindowMs) return
    last = { text, at: now() }
    notify(text)
  }
}

export function createQueryClient(report: ErrorReporter = errorReporter()): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => report(error, query.meta, query.queryKey),
    }),
    mutationCache: new MutationCache({
      onError: (error, _variables, _context, mutation) => report(error, mutation.meta),
    }),
    defaultOptions: {
      queries: {
        refetchOnWindowFocus: true,
        refetchIntervalInBackground: false,
        retry: shouldRetry,
      },
      mutations: { retry: false },
    },
  })
}

export const queryClient = createQueryClient()

/**
 * A query that seeds a form: fetched fresh each time the form opens and never refetched under
 * the user's edits (no focus or reconnect refetch, nothing kept once the form closes).
 */
export const formSeed = {
  gcTime: 0,
  staleTime: Infinity,
  refetchOnWindowFocus: false,
  refetchOnReconnect: false,
} as const

const identities = new WeakMap<object, number>()
let nextIdentity = 0

/**
 * A stable number for a function or object, for query keys of loaders passed as props (the
 * options of a form field, the nodes of a side tree): the same loader shares its cache entry.
 */
export function identityKey(value: object): number {
  let id = identities.get(value)
  if (id === undefined) {
    id = ++nextIdentity
    identities.set(value, id)
  }
  return id
}
