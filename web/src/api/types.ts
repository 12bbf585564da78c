/** Envelope of every /api response (except the OAuth token, captcha and logout calls). */
export interface Envelope<T> {
  code: number
  success: boolean
  data: T
  msg: string
}

/** One page of a list call (`current`, `size` in; this out). */
export interface Page<T> {
  records: T[]
  total: number
  size: number
  current: number
  pages: number
}

/** Query params of a list call; filters are named after fields (see docs/api conventions). */
export interface PageQuery {
  current?: number
  size?: number
  ascs?: string
  descs?: string
  [filter: string]: string | number | boolean | undefined
}

/** A page with no rows (before the first answer, or an answer without data). */
export const emptyPage = <T>(size = 10, current = 1): Page<T> => ({
  records: [],
  total: 0,
  size,
  current,
  pages: 0,
})

/**
 * A page answer made safe: no records → `[]`, numbers as numbers, the asked paging when the
 * answer has none; `row` turns each wire record into what the screen shows.
 */
export function pageFrom<W, T = W>(
  data: Partial<Page<W>> | null | undefined,
  query: { size?: unknown; current?: unknown },
  row?: (record: W) => T,
): Page<T> {
  const records = data?.records ?? []
  return {
    records: row ? records.map(row) : (records as unknown as T[]),
    total: Number(data?.total ?? 0),
    size: Number(data?.size ?? query.size ?? 10),
    current: Number(data?.current ?? query.current ?? 1),
    pages: Number(data?.pages ?? 0),
  }
}
