import { create } from 'zustand'
import { getStore, removeStore, setStore } from '../utils/storage'

/** What the OAuth token call returns about the signed-in user (spec §3 "User info"). */
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

interface SessionState {
  token: string
  refreshToken: string
  tenantId: string
  userInfo: UserInfo | null
  setTokens: (token: string, refreshToken: string) => void
  setTenantId: (tenantId: string) => void
  setUserInfo: (userInfo: UserInfo | null) => void
  /** Signs out locally: clears the state and its storage entries. */
  logout: () => void
}

const keys = ['token', 'refreshToken', 'tenantId', 'userInfo'] as const

export const useSessionStore = create<SessionState>()((set) => ({
  token: getStore<string>('token') ?? '',
  refreshToken: getStore<string>('refreshToken') ?? '',
  tenantId: getStore<string>('tenantId') ?? '',
  userInfo: getStore<UserInfo>('userInfo') ?? null,
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
  logout: () => {
    keys.forEach(removeStore)
    set({ token: '', refreshToken: '', tenantId: '', userInfo: null })
  },
}))
