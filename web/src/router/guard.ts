import type { Messages } from '../locales/zh'

/** i18n key of a page title. */
export type TitleKey = `route.${keyof Messages['route']}`

/** Route meta (isAuth false: public; isTab false: no tab): carried in each route's `handle`. */
export interface RouteMeta {
  /** Page title; the document title reads "<page> - <product>". */
  title?: TitleKey
  /** false: reachable without a token. Default: a token is needed. */
  isAuth?: boolean
  /** false: the page adds no tab. */
  isTab?: boolean
  /**
   * The catch-all route of menu pages: signed out, nothing names it (menus load after sign-in),
   * so it is an unknown path and goes to /404.
   */
  menuCatchAll?: boolean
}

export interface GuardInput {
  path: string
  token: string
  /** Meta of the deepest matched route. */
  meta: RouteMeta | undefined
  /** The screen is locked (session-scoped). */
  locked?: boolean
  /** The server ended the session (401) in this page load. */
  expired?: boolean
}

export const loginPath = '/login'
export const lockPath = '/lock'

/**
 * The navigation guard as a pure function: where to send the user instead, or null to stay.
 * - while locked, every route but /lock goes to /lock; /lock when not locked goes home (or to
 *   /login without a token): there is nothing to unlock;
 * - /login with a token goes to /;
 * - a route needs a stored token unless its meta says isAuth false; without one, go to /login.
 */
export function guardRedirect({
  path,
  token,
  meta,
  locked = false,
  expired = false,
}: GuardInput): string | null {
  const signedIn = token !== ''
  const normalised = path.length > 1 ? path.replace(/\/+$/, '') : path
  if (locked && signedIn) return normalised === lockPath ? null : lockPath
  if (normalised === lockPath) return signedIn ? '/' : loginPath
  if (normalised === loginPath) return signedIn ? '/' : null
  if (meta?.isAuth === false) return null
  // Signed out, nothing names menu paths (an unknown path: /404), unless the server has just ended
  // the session on one: then it is a page that needs signing in again.
  if (!signedIn && meta?.menuCatchAll) return expired ? loginPath : '/404'
  return signedIn ? null : loginPath
}
