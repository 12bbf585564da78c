/**
 * Token refresh scheduling: every `intervalMs` (10 s) look at the stored
 * token's age; when it reaches `tokenTime` seconds, refresh — one refresh at a time: a check while
 * a refresh is running joins it instead of starting another.
 */
export interface RefreshDeps {
  /** When the stored access token was written (ms since epoch), or undefined when signed out. */
  tokenWrittenAt: () => number | undefined
  /** Exchanges the refresh token for new tokens and stores them (rewriting their datetime). */
  refresh: () => Promise<void>
  tokenTime: number
  now?: () => number
}

export interface Refresher {
  /** One check; resolves when any refresh it started or joined is over. */
  check: () => Promise<void>
  /** Starts the periodic check; returns the function that stops it. */
  start: (intervalMs?: number) => () => void
}

export function createRefresher({
  tokenWrittenAt,
  refresh,
  tokenTime,
  now = Date.now,
}: RefreshDeps): Refresher {
  let running: Promise<void> | null = null

  const check = (): Promise<void> => {
    if (running) return running
    const writtenAt = tokenWrittenAt()
    if (writtenAt === undefined) return Promise.resolve()
    const ageSeconds = (now() - writtenAt) / 1000
    if (ageSeconds < tokenTime) return Promise.resolve()
    running = refresh()
      .catch(() => undefined) // the request client already reported it; the next check retries
      .finally(() => {
        running = null
      })
    return running
  }

  const start = (intervalMs = 10_000) => {
    const timer = setInterval(() => void check(), intervalMs)
    return () => clearInterval(timer)
  }

  return { check, start }
}
