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
