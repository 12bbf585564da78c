import { act, renderHook, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { configureRequest } from '../api/request'
import type { Page } from '../api/types'
import { testQueryClient, withQueryClient } from '../test/render'
import { usePagedList } from './usePagedList'

const pageOf = (rows: string[], current: number): Page<string> => ({
  records: rows,
  total: 30,
  size: 10,
  current,
  pages: 3,
})

const wrapper = () => {
  const client = testQueryClient()
  return ({ children }: { children: ReactNode }) => withQueryClient(children, client)
}

// A failed load is toasted through the request client, by default antd's static message: a React
// root of its own, outside Testing Library's cleanup, whose animation work could run after jsdom
// was torn down ("window is not defined", an unhandled error failing the run).
beforeEach(() => configureRequest({ notifyError: () => undefined }))

describe('usePagedList', () => {
  it('loads the page of the state, and again when the same state is asked for', async () => {
    const load = vi.fn((current: number) => Promise.resolve(pageOf([`row${current}`], current)))
    const { result } = renderHook(
      () =>
        usePagedList({ current: 1, size: 10 }, (s) => ({
          queryKey: ['rows', s.current, s.size],
          queryFn: () => load(s.current),
        })),
      { wrapper: wrapper() },
    )
    await waitFor(() => expect(result.current.page.records).toEqual(['row1']))
    act(() => result.current.go({ current: 2 }))
    // The rows shown so far stay while the next page loads.
    expect(result.current.page.records).toEqual(['row1'])
    await waitFor(() => expect(result.current.page.records).toEqual(['row2']))
    expect(load).toHaveBeenCalledTimes(2)
    act(() => result.current.go())
    await waitFor(() => expect(load).toHaveBeenCalledTimes(3))
    expect(load).toHaveBeenLastCalledWith(2)
  })

  it('keeps the rows shown so far when a load fails', async () => {
    let fail = false
    const { result } = renderHook(
      () =>
        usePagedList({ current: 1, size: 10 }, (s) => ({
          queryKey: ['failing', s.current],
          queryFn: () =>
            fail ? Promise.reject(new Error('down')) : Promise.resolve(pageOf(['a'], s.current)),
        })),
      { wrapper: wrapper() },
    )
    await waitFor(() => expect(result.current.page.records).toEqual(['a']))
    fail = true
    act(() => result.current.go({ current: 3 }))
    await waitFor(() => expect(result.current.query.isError).toBe(true))
    expect(result.current.page.records).toEqual(['a'])
    expect(result.current.loading).toBe(false)
  })
})
