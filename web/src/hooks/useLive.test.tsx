import { act, renderHook, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { testQueryClient, withQueryClient } from '../test/render'
import { useLive } from './useLive'

let visibility: DocumentVisibilityState = 'visible'
const setVisibility = (state: DocumentVisibilityState) => {
  visibility = state
  document.dispatchEvent(new Event('visibilitychange', { bubbles: true }))
}

beforeEach(() => {
  vi.useFakeTimers()
  visibility = 'visible'
  Object.defineProperty(document, 'visibilityState', {
    configurable: true,
    get: () => visibility,
  })
})
afterEach(() => {
  vi.useRealTimers()
})

/** Lets the awaited call and its state updates run (the query client notifies on a 0 ms timer). */
const settle = async () => {
  for (let i = 0; i < 3; i++) await act(() => vi.advanceTimersByTimeAsync(0))
}
/** Moves the fake clock, then lets what it started settle. */
const tick = (ms: number) => act(() => vi.advanceTimersByTimeAsync(ms))

const wrapper = () => {
  const client = testQueryClient()
  return ({ children }: { children: ReactNode }) => withQueryClient(children, client)
}

describe('useLive', () => {
  it('loads at once, then every interval', async () => {
    const load = vi.fn(() => Promise.resolve(1))
    const { result } = renderHook(
      () => useLive({ queryKey: ['a'], queryFn: load }, { intervalMs: 10_000 }),
      { wrapper: wrapper() },
    )
    await settle()
    expect(load).toHaveBeenCalledTimes(1)
    expect(result.current.data).toBe(1)
    expect(result.current.loading).toBe(false)
    await tick(9_999)
    expect(load).toHaveBeenCalledTimes(1)
    await tick(1)
    expect(load).toHaveBeenCalledTimes(2)
  })

  it('pauses while the tab is hidden and reloads when it shows again', async () => {
    const load = vi.fn(() => Promise.resolve(1))
    const { result } = renderHook(
      () => useLive({ queryKey: ['b'], queryFn: load }, { intervalMs: 10_000 }),
      { wrapper: wrapper() },
    )
    await settle()
    act(() => setVisibility('hidden'))
    expect(result.current.paused).toBe(true)
    await tick(60_000)
    expect(load).toHaveBeenCalledTimes(1)
    act(() => setVisibility('visible'))
    await settle()
    expect(result.current.paused).toBe(false)
    expect(load).toHaveBeenCalledTimes(2)
  })

  it('keeps the data shown when a refresh fails and forgets it for a new key', async () => {
    let fail = false
    const load = vi.fn(() => (fail ? Promise.reject(new Error('down')) : Promise.resolve(7)))
    const { result, rerender } = renderHook(
      ({ id }: { id: string }) =>
        useLive({ queryKey: ['c', id], queryFn: load }, { intervalMs: 10_000 }),
      { wrapper: wrapper(), initialProps: { id: '1' } },
    )
    await settle()
    fail = true
    await tick(10_000)
    await settle()
    expect(load).toHaveBeenCalledTimes(2)
    expect(result.current.data).toBe(7)
    fail = false
    rerender({ id: '2' })
    expect(result.current.data).toBeUndefined()
    expect(result.current.loading).toBe(true)
    await settle()
    expect(result.current.data).toBe(7)
  })

  it('makes no call while disabled', async () => {
    const load = vi.fn(() => Promise.resolve(1))
    const { result } = renderHook(
      () => useLive({ queryKey: ['d'], queryFn: load }, { enabled: false }),
      { wrapper: wrapper() },
    )
    await tick(60_000)
    expect(load).not.toHaveBeenCalled()
    expect(result.current.loading).toBe(false)
  })
})

// A refresh started by the poll itself, on real timers: under fake timers the failure reaches the
// query (and its observer) but React is never asked to render it, so the assertion could not fail
// for the right reason there.
describe('useLive, a failed refresh', () => {
  beforeEach(() => {
    vi.useRealTimers()
  })

  it('keeps the data shown, reports the failure, and clears it with the next answer', async () => {
    let fail = false
    const load = vi.fn(() => (fail ? Promise.reject(new Error('down')) : Promise.resolve(7)))
    const { result, unmount } = renderHook(
      () => useLive({ queryKey: ['e'], queryFn: load }, { intervalMs: 20 }),
      { wrapper: wrapper() },
    )
    await waitFor(() => expect(result.current.data).toBe(7))
    expect(result.current.error).toBeUndefined()
    const answeredAt = result.current.updatedAt

    fail = true
    const callsBefore = load.mock.calls.length
    await waitFor(() => expect(result.current.error).toBeInstanceOf(Error))
    expect((result.current.error as Error).message).toBe('down')
    expect(load.mock.calls.length).toBeGreaterThan(callsBefore)
    expect(result.current.data).toBe(7)
    expect(result.current.updatedAt).toBe(answeredAt)
    expect(result.current.loading).toBe(false)

    fail = false
    await waitFor(() => expect(result.current.error).toBeUndefined())
    expect(result.current.data).toBe(7)
    unmount()
  })
})
