/**
 * Local error log (uploaded or cleared from the top bar's log dialog): uncaught errors and unhandled promise
 * rejections are kept in a list `{type: 'error', url, message, stack, info, time}` persisted as
 * `logsList`, shown by the top bar's log dialog.
 */
import { create } from 'zustand'
import { getStore, removeStore, setStore } from './storage'

export interface ErrorLogEntry {
  type: 'error'
  url: string
  message: string
  stack: string
  info: string
  time: string
}

/** Keeps the newest entries only, so a loop of errors cannot fill the browser storage. */
export const maxLogs = 200

interface ErrorLogState {
  logs: ErrorLogEntry[]
  add: (entry: ErrorLogEntry) => void
  clear: () => void
}

const stored = getStore<ErrorLogEntry[]>('logsList')

export const useErrorLogStore = create<ErrorLogState>()((set, get) => ({
  logs: Array.isArray(stored) ? stored : [],
  add: (entry) => {
    const logs = [entry, ...get().logs].slice(0, maxLogs)
    setStore('logsList', logs)
    set({ logs })
  },
  clear: () => {
    removeStore('logsList')
    set({ logs: [] })
  },
}))

const pad = (n: number) => String(n).padStart(2, '0')
const timestamp = (date: Date) =>
  `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
  `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`

/** Turns whatever was thrown into a log entry. */
export function toLogEntry(
  reason: unknown,
  info: string,
  url: string,
  now = new Date(),
): ErrorLogEntry {
  const error = reason instanceof Error ? reason : undefined
  return {
    type: 'error',
    url,
    message: error
      ? error.message
      : typeof reason === 'string'
        ? reason
        : (JSON.stringify(reason) ?? String(reason)),
    stack: error?.stack ?? '',
    info,
    time: timestamp(now),
  }
}

/** Listens for uncaught errors and unhandled rejections on `target`; returns the stop function. */
export function captureErrors(target: Window = window): () => void {
  const onError = (event: ErrorEvent) => {
    useErrorLogStore
      .getState()
      .add(toLogEntry(event.error ?? event.message, 'uncaught error', target.location.href))
  }
  const onRejection = (event: PromiseRejectionEvent) => {
    useErrorLogStore
      .getState()
      .add(toLogEntry(event.reason, 'unhandled rejection', target.location.href))
  }
  target.addEventListener('error', onError)
  target.addEventListener('unhandledrejection', onRejection)
  return () => {
    target.removeEventListener('error', onError)
    target.removeEventListener('unhandledrejection', onRejection)
  }
}
