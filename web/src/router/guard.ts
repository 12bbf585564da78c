import type { Messages } from '../locales/zh'

/** i18n key of a page title. */
export type TitleKey = `route.${keyof Messages['route']}`

/** Route meta (spec §2): carried in each route's `handle`. */
export interface RouteMeta {
  /** Page title; the document title reads "<page> - <product>". */
  title?: TitleKey
  /** false: reachable without a token. Default: a token is needed. */
  isAuth?: boolean
}

export interface GuardInput {
  path: string
  token: string
  /** Meta of the deepest matched route. */
  meta: RouteMeta | undefined
}

export const loginPath = '/login'

/**
 * The navigation guard as a pure function: where to send the user instead, or null to stay.
 * - /login with a token goes to /;
 * - a route needs a stored token unless its meta says isAuth false; without one, go to /login.
 */
export function guardRedirect({ path, token, meta }: GuardInput): string | null {
  const signedIn = token !== ''
  const normalised = path.length > 1 ? path.replace(/\/+$/, '') : path
  if (normalised === loginPath) return signedIn ? '/' : null
  if (meta?.isAuth === false) return null
  return signedIn ? null : loginPath
}
