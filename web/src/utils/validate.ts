/**
 * The forms' validation rules (phone, username, captcha, decimals...) as pure functions returning an i18n key (or null when valid), so the
 * forms and the tests share them.
 */

/** 11 digits starting with 1. */
export const phonePattern = /^1\d{10}$/

export type PhoneError = 'validate.phoneRequired' | 'validate.phoneFormat'

export function checkPhone(value: string | undefined | null): PhoneError | null {
  const phone = (value ?? '').trim()
  if (phone === '') return 'validate.phoneRequired'
  return phonePattern.test(phone) ? null : 'validate.phoneFormat'
}

/** Avatar: jpg or png only, at most 500 kB. */
export const avatarMaxBytes = 500 * 1024
const avatarTypes = ['image/jpeg', 'image/png']

export type AvatarError = 'info.avatarType' | 'info.avatarSize'

export function checkAvatar(file: { type: string; size: number }): AvatarError | null {
  if (!avatarTypes.includes(file.type)) return 'info.avatarType'
  return file.size <= avatarMaxBytes ? null : 'info.avatarSize'
}

export interface RegisterForm {
  tenantId?: string
  name?: string
  account?: string
  password?: string
  password2?: string
}

export type RegisterError =
  | 'register.tenantRequired'
  | 'register.accountRequired'
  | 'register.passwordRequired'
  | 'register.passwordMismatch'

const blank = (value: string | undefined) => (value ?? '').trim() === ''

/**
 * The register dialog's checks, in the spec's order. The tenant id is asked for (and checked) only
 * when it could not be resolved from the site address.
 */
export function checkRegister(form: RegisterForm, tenantResolved: boolean): RegisterError | null {
  if (!tenantResolved && blank(form.tenantId)) return 'register.tenantRequired'
  if (blank(form.account)) return 'register.accountRequired'
  if (blank(form.password) || blank(form.password2)) return 'register.passwordRequired'
  if (form.password !== form.password2) return 'register.passwordMismatch'
  return null
}

/** Username: 1-16 letters, digits, underscore or hyphen. */
export const usernamePattern = /^[A-Za-z0-9_-]{1,16}$/

/** Owner password: longer than 6 characters. */
export const ownerPasswordOk = (password: string): boolean => password.length > 6
