import { act, renderHook } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useLive, usePolling } from './usePolling'

let visibility: DocumentVisibilityState = 'visible'
const setVisibility = (state: DocumentVisibilityState) => {
  visibility = state
  document.dispatchEvent(new Event('visibilitychange'))
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

/** Lets the awaited task and its finally block run. */
const settle = () => act(() => Promise.resolve())
/** Moves the fake clock, then lets what it started settle. */
const tick = (ms: number) =>
  act(() => {
    vi.advanceTimersByTime(ms)
    return Promise.resolve()
  })

describe('usePolling', () => {
  it('runs at once, then every interval', async () => {
    const task = vi.fn(() => Promise.resolve())
    renderHook(() => usePolling(task, 10_000))
    await settle()
    expect(task).toHaveBeenCalledTimes(1)
    await tick(9_999)
    expect(task).toHaveBeenCalledTimes(1)
    await tick(1)
    expect(task).toHaveBeenCalledTimes(2)
    await tick(10_000)
    expect(task).toHaveBeenCalledTimes(3)
  })

  it('pauses while the tab is hidden and catches up when it shows again', async () => {
    const task = vi.fn(() => Promise.resolve())
    const { result } = renderHook(() => usePolling(task, 10_000))
    await settle()
    expect(task).toHaveBeenCalledTimes(1)

    act(() => setVisibility('hidden'))
    expect(result.current.paused).toBe(true)
    await tick(60_000)
    expect(task).toHaveBeenCalledTimes(1)

    act(() => setVisibility('visible'))
    await settle()
    expect(result.current.paused).toBe(false)
    expect(task).toHaveBeenCalledTimes(2) // the last run was long ago: at once
    await tick(10_000)
    expect(task).toHaveBeenCalledTimes(3)
  })

  it('waits out the rest of the interval when the tab comes back quickly', async () => {
    const task = vi.fn(() => Promise.resolve())
    renderHook(() => usePolling(task, 10_000))
    await settle()
    await tick(3_000)
    act(() => setVisibility('hidden'))
    await tick(2_000)
    act(() => setVisibility('visible'))
    await settle()
    expect(task).toHaveBeenCalledTimes(1)
    await tick(5_000)
    expect(task).toHaveBeenCalledTimes(2)
  })

  it('never overlaps a slow run and keeps polling after a failure', async () => {
    let finish: () => void = () => undefined
    const task = vi
      .fn<() => Promise<void>>()
      .mockImplementationOnce(() => new Promise<void>((resolve) => (finish = resolve)))
      .mockImplementationOnce(() => Promise.reject(new Error('down')))
      .mockImplementation(() => Promise.resolve())
    const { result } = renderHook(() => usePolling(task, 1_000))
    await settle()
    await tick(5_000)
    act(() => result.current.refresh())
    expect(task).toHaveBeenCalledTimes(1) // still in flight
    await act(() => {
      finish()
      return Promise.resolve()
    })
    await tick(1_000)
    expect(task).toHaveBeenCalledTimes(2) // failed
    await tick(1_000)
    expect(task).toHaveBeenCalledTimes(3)
  })

  it('stops when unmounted or disabled and restarts on a new key', async () => {
    const task = vi.fn(() => Promise.resolve())
    const { rerender, unmount } = renderHook(
      ({ enabled, key }) => usePolling(task, 1_000, { enabled, key }),
      { initialProps: { enabled: false, key: 'a' } },
    )
    await tick(5_000)
    expect(task).not.toHaveBeenCalled()
    rerender({ enabled: true, key: 'a' })
    await settle()
    expect(task).toHaveBeenCalledTimes(1)
    await tick(500)
    rerender({ enabled: true, key: 'b' })
    await settle()
    expect(task).toHaveBeenCalledTimes(2)
    unmount()
    await tick(10_000)
    expect(task).toHaveBeenCalledTimes(2)
  })
})

describe('useLive', () => {
  it('keeps data across a failed refresh and forgets it on a new key', async () => {
    const load = vi
      .fn<(signal: AbortSignal) => Promise<number>>()
      .mockResolvedValueOnce(1)
      .mockRejectedValueOnce(new Error('down'))
      .mockResolvedValue(7)
    const { result, rerender } = renderHook(
      ({ key }) => useLive(load, { key, intervalMs: 1_000 }),
      { initialProps: { key: 'st-1' } },
    )
    expect(result.current.loading).toBe(true)
    await settle()
    expect(result.current.data).toBe(1)
    expect(result.current.loading).toBe(false)
    await tick(1_000)
    expect(result.current.data).toBe(1)
    expect(result.current.error).toBeInstanceOf(Error)
    rerender({ key: 'st-2' })
    expect(result.current.data).toBeUndefined()
    expect(result.current.loading).toBe(true)
    await settle()
    expect(result.current.data).toBe(7)
    expect(result.current.error).toBeUndefined()
  })
})
