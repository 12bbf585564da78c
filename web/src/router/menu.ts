/**
 * From the server's menu tree to what the console shows and routes (a leaf gets "/index" unless external).
 *
 * - items whose `meta.roles` is non-empty and lacks the current role are dropped;
 * - a missing icon gets the default icon;
 * - an http(s) URL or a path containing "html" opens inside the console at /myiframe/{routerPath};
 * - a leaf with no children gets "/index" appended to its route path unless it is external (the
 *   seeded paths already name leaf pages, e.g. /station/inverter: the router accepts both forms);
 * - isOpen 2 opens in a new window and adds no tab.
 */
export interface ServerMenu {
  id: string
  parentId?: string
  code?: string
  name: string
  alias?: string
  path?: string
  source?: string
  sort?: number
  category?: number
  action?: number
  isOpen?: number
  meta?: { roles?: string[] }
  children?: ServerMenu[]
}

export const defaultIcon = 'AppstoreOutlined'
export const iframePrefix = '/myiframe/'

export interface MenuNode {
  key: string
  name: string
  code: string
  /** The menu's own path, as the server sent it (where the sidebar navigates). */
  path: string
  /** Route path: "/index" appended to internal leaves; /myiframe/... for embedded pages. */
  routePath: string
  icon: string
  /** URL embedded by /myiframe (external links and html pages). */
  src?: string
  newWindow: boolean
  children: MenuNode[]
}

export const isHttpUrl = (path: string): boolean => /^https?:\/\//i.test(path)
/** Menu entries whose path is an http(s) URL or contains html open through /myiframe. */
export const isEmbedded = (path: string): boolean => isHttpUrl(path) || path.includes('html')

export const visibleTo = (menu: ServerMenu, role: string | undefined): boolean => {
  const roles = menu.meta?.roles ?? []
  return roles.length === 0 || (role !== undefined && roles.includes(role))
}

const withIndex = (path: string) =>
  /\/index$/.test(path) ? path : `${path.replace(/\/+$/, '')}/index`

/** The router path segment of an embedded entry: its code, else its id. */
const routerPathOf = (menu: ServerMenu) => encodeURIComponent(menu.code || menu.id)

export function buildMenu(menus: readonly ServerMenu[], role: string | undefined): MenuNode[] {
  return [...menus]
    .filter((menu) => visibleTo(menu, role) && (menu.category ?? 1) === 1)
    .sort((a, b) => (a.sort ?? 0) - (b.sort ?? 0))
    .map((menu) => {
      const path = menu.path ?? ''
      const children = buildMenu(menu.children ?? [], role)
      const embedded = isEmbedded(path)
      const routePath = embedded
        ? iframePrefix + routerPathOf(menu)
        : children.length === 0
          ? withIndex(path)
          : path
      return {
        key: menu.id,
        name: menu.name,
        code: menu.code ?? menu.id,
        path: embedded ? routePath : path,
        routePath,
        icon: menu.source && menu.source.trim() !== '' ? menu.source : defaultIcon,
        src: embedded ? path : undefined,
        newWindow: menu.isOpen === 2,
        children,
      }
    })
}

/** Every node, depth first. */
export function flattenMenu(nodes: readonly MenuNode[]): MenuNode[] {
  return nodes.flatMap((node) => [node, ...flattenMenu(node.children)])
}

/** Leaves: the pages the menu leads to. */
export const menuLeaves = (nodes: readonly MenuNode[]): MenuNode[] =>
  flattenMenu(nodes).filter((node) => node.children.length === 0)

const trimSlash = (path: string) => (path.length > 1 ? path.replace(/\/+$/, '') : path)

/** The menu leaf a location belongs to: its own path, or its route path (with "/index"). */
export function findMenuByPath(nodes: readonly MenuNode[], pathname: string): MenuNode | undefined {
  const target = trimSlash(pathname)
  return menuLeaves(nodes).find((node) => node.path === target || node.routePath === target)
}

/** Menu search: case-insensitive prefix of the menu name, over the leaves. */
export function searchMenu(nodes: readonly MenuNode[], query: string): MenuNode[] {
  const prefix = query.trim().toLowerCase()
  if (prefix === '') return []
  return menuLeaves(nodes).filter((node) => node.name.toLowerCase().startsWith(prefix))
}

/** Button permissions (a tree of codes flattened to a map): every category-2 code of the tree → true. */
export interface ServerButton {
  code?: string
  category?: number
  children?: ServerButton[]
}

export function flattenPermissions(tree: readonly ServerButton[]): Record<string, true> {
  const out: Record<string, true> = {}
  const walk = (items: readonly ServerButton[]) => {
    for (const item of items) {
      if (item.category === 2 && item.code) out[item.code] = true
      walk(item.children ?? [])
    }
  }
  walk(tree)
  return out
}
