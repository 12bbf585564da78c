import { afterEach, describe, expect, it, vi } from 'vitest'
import { ChunkLoadError, chunkLoadTimeout, loadWithTimeout } from './lazy'

afterEach(() => {
  vi.useRealTimers()
})

describe('loadWithTimeout', () => {
  it('resolves with the chunk when it loads in time', async () => {
    await expect(loadWithTimeout(() => Promise.resolve('page'))).resolves.toBe('page')
  })

  it('turns a failed import into a ChunkLoadError', async () => {
    const failure = loadWithTimeout(() => Promise.reject(new TypeError('Failed to fetch')))
    await expect(failure).rejects.toBeInstanceOf(ChunkLoadError)
  })

  it('gives up after 120 s', async () => {
    vi.useFakeTimers()
    expect(chunkLoadTimeout).toBe(120_000)
    const pending = loadWithTimeout(() => new Promise<never>(() => undefined))
    const outcome = pending.catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(119_999)
    let settled = false
    void outcome.then(() => (settled = true))
    await Promise.resolve()
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await outcome).toBeInstanceOf(ChunkLoadError)
  })
})
