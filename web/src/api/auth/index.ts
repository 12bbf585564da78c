/**
 * Sign-in, tokens, captcha, tenant resolution and guest registration (the password is sent as the
 * MD5 hex of what was typed; tokens come from `oauth/token`).
 */
import { website } from '../../config/website'
import { md5 } from '../../utils/md5'
import request from '../request'
import type { Envelope } from '../types'

/** Flat (no envelope) success body of POST /blade-auth/oauth/token. */
export interface TokenResponse {
  access_token: string
  refresh_token: string
  token_type: string
  expires_in: number
  tenant_id: string
  user_id: string
  user_name: string
  account: string
  nick_name: string
  real_name?: string
  role_id: string
  role_name: string
  dept_id: string
  post_id?: string
  avatar: string
  oauth_id?: string
  detail?: unknown
}

export interface Captcha {
  key: string
  image: string
}

export interface SignInForm {
  tenantId: string
  username: string
  /** As typed; sent as its MD5. */
  password: string
  captchaKey?: string
  captchaCode?: string
}

export async function signIn(form: SignInForm): Promise<TokenResponse> {
  const captcha = website.captchaMode
  const headers: Record<string, string> = { 'Tenant-Id': form.tenantId }
  if (captcha) {
    headers['Captcha-Key'] = form.captchaKey ?? ''
    headers['Captcha-Code'] = form.captchaCode ?? ''
  }
  const res = await request.post<TokenResponse>('/blade-auth/oauth/token', null, {
    headers,
    params: {
      tenantId: form.tenantId,
      username: form.username,
      password: md5(form.password),
      grant_type: captcha ? 'captcha' : 'password',
      scope: 'all',
      type: 'account',
    },
  })
  return res.data
}

export async function refreshToken(
  refresh: string,
  tenantId: string,
  deptId?: string,
  roleId?: string,
): Promise<TokenResponse> {
  const headers: Record<string, string> = { 'Tenant-Id': tenantId }
  if (deptId) headers['Dept-Id'] = deptId
  if (roleId) headers['Role-Id'] = roleId
  const res = await request.post<TokenResponse>('/blade-auth/oauth/token', null, {
    headers,
    params: { tenantId, refresh_token: refresh, grant_type: 'refresh_token', scope: 'all' },
  })
  return res.data
}

export async function getCaptcha(): Promise<Captcha> {
  const res = await request.get<Captcha>('/blade-auth/oauth/captcha')
  return { key: res.data.key, image: res.data.image }
}

export interface OauthUserInfo {
  tenantId: string
  userId: string
  account: string
  userName: string
  nickName: string
  realName: string
  avatar: string
  roleId: string
  roleName: string
  deptId: string
  postId: string
}

export async function getOauthUserInfo(): Promise<OauthUserInfo> {
  const res = await request.get<Envelope<OauthUserInfo>>('/blade-auth/oauth/user-info')
  return res.data.data
}

export async function logoutCall(): Promise<void> {
  await request.get('/blade-auth/oauth/logout')
}

export async function clearCache(): Promise<void> {
  await request.get('/blade-auth/oauth/clear-cache')
}

/** Tenant of the site address, or null when the address names none. Silent: the form asks instead. */
export async function getTenantByDomain(domain: string): Promise<string | null> {
  const res = await request.get<Envelope<{ tenantId: string; domain: string } | null>>(
    '/blade-system/tenant/info',
    { params: { domain }, silent: true },
  )
  const tenantId = res.data.data?.tenantId
  return typeof tenantId === 'string' && tenantId !== '' ? tenantId : null
}

export interface GuestRegistration {
  tenantId: string
  name: string
  account: string
  /** As typed; sent as its MD5. */
  password: string
  oauthId: string
}

export async function registerGuest(form: GuestRegistration): Promise<void> {
  await request.post<Envelope<unknown>>('/blade-user/register-guest', null, {
    params: { ...form, password: md5(form.password) },
    silent: true,
  })
}

/** The log dialog's "upload to server": POST of the local logs to the logout path (family convention). */
export async function sendLogs(logs: unknown[]): Promise<void> {
  await request.post('/blade-auth/oauth/logout', logs)
}
