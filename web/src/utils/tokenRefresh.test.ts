import { afterEach, describe, expect, it, vi } from 'vitest'
import { createRefresher } from './tokenRefresh'

afterEach(() => {
  vi.useRealTimers()
})

function setup(writtenAt: number | undefined, clock: { now: number }) {
  const state = { writtenAt }
  let release: () => void = () => undefined
  const refresh = vi.fn(
    () =>
      new Promise<void>((resolve) => {
        release = () => {
          state.writtenAt = clock.now
          resolve()
        }
      }),
  )
  const refresher = createRefresher({
    tokenWrittenAt: () => state.writtenAt,
    refresh,
    tokenTime: 3000,
    now: () => clock.now,
  })
  return { refresher, refresh, release: () => release(), state }
}

describe('token refresh', () => {
  it('does nothing while the token is younger than tokenTime, refreshes once it is that old', async () => {
    const clock = { now: 1_000_000 }
    const { refresher, refresh, release } = setup(1_000_000, clock)
    clock.now += 2999_000
    await refresher.check()
    expect(refresh).not.toHaveBeenCalled()
    clock.now += 1000
    const done = refresher.check()
    expect(refresh).toHaveBeenCalledTimes(1)
    release()
    await done
    // The new token is young again.
    await refresher.check()
    expect(refresh).toHaveBeenCalledTimes(1)
  })

  it('concurrent checks make one call', async () => {
    const clock = { now: 10_000_000 }
    const { refresher, refresh, release } = setup(0, clock)
    const checks = [refresher.check(), refresher.check(), refresher.check()]
    expect(refresh).toHaveBeenCalledTimes(1)
    release()
    await Promise.all(checks)
    expect(refresh).toHaveBeenCalledTimes(1)
  })

  it('signed out: never refreshes', async () => {
    const { refresher, refresh } = setup(undefined, { now: 10_000_000 })
    await refresher.check()
    expect(refresh).not.toHaveBeenCalled()
  })

  it('a failed refresh is retried by the next check', async () => {
    const clock = { now: 10_000_000 }
    const refresh = vi.fn(() => Promise.reject(new Error('400')))
    const refresher = createRefresher({
      tokenWrittenAt: () => 0,
      refresh,
      tokenTime: 3000,
      now: () => clock.now,
    })
    await refresher.check()
    await refresher.check()
    expect(refresh).toHaveBeenCalledTimes(2)
  })

  it('checks every 10 s once started', async () => {
    vi.useFakeTimers()
    const clock = { now: 10_000_000 }
    const { refresher, refresh, release } = setup(clock.now - 2995_000, clock)
    const stop = refresher.start()
    await vi.advanceTimersByTimeAsync(9_999)
    expect(refresh).not.toHaveBeenCalled()
    clock.now += 10_000
    await vi.advanceTimersByTimeAsync(1)
    expect(refresh).toHaveBeenCalledTimes(1)
    release()
    stop()
    await vi.advanceTimersByTimeAsync(60_000)
    expect(refresh).toHaveBeenCalledTimes(1)
  })
})
