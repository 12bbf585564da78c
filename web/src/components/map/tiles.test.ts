import { afterEach, describe, expect, it, vi } from 'vitest'
import { browserImageProbe, forgetTileProbes, probeTileUrl, tilesReachable } from './tiles'

afterEach(() => {
  forgetTileProbes()
  vi.useRealTimers()
})

describe('tile probe', () => {
  it('asks for one tile over China', () => {
    expect(probeTileUrl('https://{s}.tile.example/{z}/{x}/{y}{r}.png')).toBe(
      'https://a.tile.example/4/12/6.png',
    )
  })

  it('falls back to outlines for an empty template, a failure or a throwing probe', async () => {
    const never = vi.fn()
    expect(await tilesReachable('  ', 100, never)).toBe(false)
    expect(never).not.toHaveBeenCalled()
    expect(await tilesReachable('https://a/{z}/{x}/{y}', 100, () => Promise.resolve(false))).toBe(
      false,
    )
    expect(
      await tilesReachable('https://b/{z}/{x}/{y}', 100, () => Promise.reject(new Error('x'))),
    ).toBe(false)
  })

  it('probes a template once per page and reuses the answer', async () => {
    const probe = vi.fn(() => Promise.resolve(true))
    expect(await tilesReachable('https://c/{z}/{x}/{y}', 100, probe)).toBe(true)
    expect(await tilesReachable('https://c/{z}/{x}/{y}', 100, probe)).toBe(true)
    expect(probe).toHaveBeenCalledTimes(1)
    expect(probe).toHaveBeenCalledWith('https://c/4/12/6', 100)
  })

  it('gives up on a tile that does not answer within the time-out', async () => {
    vi.useFakeTimers()
    // jsdom never loads images: neither onload nor onerror fires, as with a silent network.
    const answer = browserImageProbe('https://unreachable.example/4/12/6.png', 3000)
    let settled: boolean | undefined
    void answer.then((v) => (settled = v))
    await vi.advanceTimersByTimeAsync(2999)
    expect(settled).toBeUndefined()
    await vi.advanceTimersByTimeAsync(1)
    expect(settled).toBe(false)
  })
})
