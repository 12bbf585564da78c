/**
 * Menu pages that are built, by the menu path the server sends (the router also accepts the path
 * with "/index" appended). Each is its own chunk, given up on after the chunk time-out. Menu paths
 * missing here show the "not available yet" page.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react'
import { loadWithTimeout } from '../../router/lazy'

type Page = LazyExoticComponent<ComponentType>

const page = (load: () => Promise<{ default: ComponentType }>): Page =>
  lazy(() => loadWithTimeout(load))

export const builtPages: Readonly<Record<string, Page>> = {
  '/system/param': page(() => import('../system/param')),
  '/system/post': page(() => import('../system/post')),
}

/** The built page of a menu path, if any. */
export const builtPageOf = (menuPath: string): Page | undefined =>
  Object.hasOwn(builtPages, menuPath) ? builtPages[menuPath] : undefined
