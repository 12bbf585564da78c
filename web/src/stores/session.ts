import { create } from 'zustand'
import type { TokenResponse } from '../api/auth'
import type { ServerMenu } from '../router/menu'
import { getStore, removeStore, setStore } from '../utils/storage'
import { useTabsStore } from './tabs'

/** What the OAuth token call returns about the signed-in user (kept locally after sign-in). */
export interface UserInfo {
  user_id: string
  user_name: string
  account: string
  nick_name: string
  real_name?: string
  role_id: string
  role_name: string
  dept_id: string
  tenant_id: string
  avatar: string
  oauth_id?: string
}

/** Selections remembered per user; cleared when a different user signs in. */
export const userSelectionKeys = ['stationId', 'inverterId'] as const

interface SessionState {
  token: string
  refreshToken: string
  tenantId: string
  userInfo: UserInfo | null
  /** Button permissions: code → true. */
  permission: Record<string, true>
  /** The caller's menu tree as the server sent it. */
  menu: ServerMenu[]
  /** Whether `menu` holds a server answer for this session (an empty one means "no menu"). */
  menuLoaded: boolean
  /** Lock flag and lock password: session-scoped (sessionStorage). */
  isLock: boolean
  lockPasswd: string
  /** Signed out by the server (a 401) in this page load: menu pages then lead to /login. */
  expired: boolean
  setTokens: (token: string, refreshToken: string) => void
  setTenantId: (tenantId: string) => void
  setUserInfo: (userInfo: UserInfo | null) => void
  /** A successful sign-in (or refresh when `fresh` is false): stores tokens and the user. */
  signIn: (data: TokenResponse, fresh?: boolean) => void
  setMenu: (menu: ServerMenu[]) => void
  setPermission: (permission: Record<string, true>) => void
  setLockPasswd: (password: string) => void
  lock: () => void
  /** Unlocks when the password matches; returns whether it did. */
  unlock: (password: string) => boolean
  /**
   * Signs out locally: clears tokens, user, menu, permissions, tabs and the lock. `expired`: the
   * server ended the session (401), so the page being left goes to /login, not /404.
   */
  logout: (expired?: boolean) => void
}

const sessionKeys = ['token', 'refreshToken', 'tenantId', 'userInfo', 'permission', 'menu']
const lockKeys = ['isLock', 'lockPasswd']

const storedMenu = getStore<ServerMenu[]>('menu')
const storedPermission = getStore<Record<string, true>>('permission')

const userInfoOf = (data: TokenResponse): UserInfo => ({
  user_id: String(data.user_id),
  user_name: data.user_name,
  account: data.account,
  nick_name: data.nick_name,
  real_name: data.real_name,
  role_id: String(data.role_id),
  role_name: data.role_name,
  dept_id: String(data.dept_id),
  tenant_id: data.tenant_id,
  avatar: data.avatar,
  oauth_id: data.oauth_id,
})

export const useSessionStore = create<SessionState>()((set, get) => ({
  token: getStore<string>('token') ?? '',
  refreshToken: getStore<string>('refreshToken') ?? '',
  tenantId: getStore<string>('tenantId') ?? '',
  userInfo: getStore<UserInfo>('userInfo') ?? null,
  permission: storedPermission ?? {},
  menu: Array.isArray(storedMenu) ? storedMenu : [],
  menuLoaded: Array.isArray(storedMenu),
  isLock: getStore<boolean>('isLock') === true,
  lockPasswd: getStore<string>('lockPasswd') ?? '',
  expired: false,
  setTokens: (token, refreshToken) => {
    setStore('token', token)
    setStore('refreshToken', refreshToken)
    set({ token, refreshToken })
  },
  setTenantId: (tenantId) => {
    setStore('tenantId', tenantId)
    set({ tenantId })
  },
  setUserInfo: (userInfo) => {
    if (userInfo) setStore('userInfo', userInfo)
    else removeStore('userInfo')
    set({ userInfo })
  },
  signIn: (data, fresh = true) => {
    const userInfo = userInfoOf(data)
    if (fresh) {
      const lastUserId = getStore<string>('lastUserId')
      if (lastUserId !== userInfo.user_id) userSelectionKeys.forEach(removeStore)
      setStore('lastUserId', userInfo.user_id)
      lockKeys.forEach(removeStore)
      set({
        isLock: false,
        lockPasswd: '',
        menu: [],
        menuLoaded: false,
        permission: {},
        expired: false,
      })
      removeStore('menu')
      removeStore('permission')
      useTabsStore.getState().reset()
    }
    get().setTokens(data.access_token, data.refresh_token)
    get().setTenantId(data.tenant_id)
    get().setUserInfo(userInfo)
  },
  setMenu: (menu) => {
    setStore('menu', menu)
    set({ menu, menuLoaded: true })
  },
  setPermission: (permission) => {
    setStore('permission', permission)
    set({ permission })
  },
  setLockPasswd: (lockPasswd) => {
    setStore('lockPasswd', lockPasswd, 'session')
    set({ lockPasswd })
  },
  lock: () => {
    setStore('isLock', true, 'session')
    set({ isLock: true })
  },
  unlock: (password) => {
    if (password !== get().lockPasswd) return false
    lockKeys.forEach(removeStore)
    set({ isLock: false, lockPasswd: '' })
    return true
  },
  logout: (expired = false) => {
    ;[...sessionKeys, ...lockKeys].forEach(removeStore)
    set({
      token: '',
      refreshToken: '',
      tenantId: '',
      userInfo: null,
      permission: {},
      menu: [],
      menuLoaded: false,
      isLock: false,
      lockPasswd: '',
      expired,
    })
    useTabsStore.getState().reset()
  },
}))
