import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { captureErrors, maxLogs, toLogEntry, useErrorLogStore } from './errorLog'
import { getStore } from './storage'

let stop: () => void = () => undefined
beforeEach(() => {
  useErrorLogStore.getState().clear()
  stop = captureErrors(window)
})
afterEach(() => stop())

describe('error log', () => {
  it('captures an uncaught error with its message and stack, persisted', () => {
    const error = new Error('boom')
    window.dispatchEvent(new ErrorEvent('error', { error, message: 'boom' }))
    const [entry] = useErrorLogStore.getState().logs
    expect(entry).toMatchObject({ type: 'error', message: 'boom', info: 'uncaught error' })
    expect(entry.stack).toContain('boom')
    expect(entry.url).toBe(window.location.href)
    expect(entry.time).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/)
    expect(getStore('logsList')).toEqual([entry])
  })

  it('captures unhandled rejections, newest first', () => {
    window.dispatchEvent(new ErrorEvent('error', { message: 'first' }))
    const event = new Event('unhandledrejection') as PromiseRejectionEvent
    Object.defineProperty(event, 'reason', { value: 'second' })
    window.dispatchEvent(event)
    expect(useErrorLogStore.getState().logs.map((l) => [l.message, l.info])).toEqual([
      ['second', 'unhandled rejection'],
      ['first', 'uncaught error'],
    ])
  })

  it('stops capturing once stopped, and clears', () => {
    stop()
    window.dispatchEvent(new ErrorEvent('error', { message: 'ignored' }))
    expect(useErrorLogStore.getState().logs).toEqual([])
  })

  it('keeps at most maxLogs entries', () => {
    for (let i = 0; i < maxLogs + 5; i++) useErrorLogStore.getState().add(toLogEntry(i, '', ''))
    expect(useErrorLogStore.getState().logs).toHaveLength(maxLogs)
    expect(useErrorLogStore.getState().logs[0].message).toBe(String(maxLogs + 4))
  })
})
