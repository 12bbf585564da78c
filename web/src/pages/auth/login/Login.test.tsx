import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, unmockHttp, type Call } from '../../../test/http'
import { renderInApp, testQueryClient } from '../../../test/render'
import Login from '.'

let calls: Call[] = []
let captchas = 0
let signInFails = true
let domainTenant: unknown = { tenantId: '123456', domain: 'localhost' }
let demoTenant: string | undefined
beforeEach(async () => {
  await i18n.changeLanguage('zh')
  captchas = 0
  signInFails = true
  domainTenant = { tenantId: '123456', domain: 'localhost' }
  demoTenant = undefined
  localStorage.removeItem('pv-last-tenant')
  calls = mockHttp((path) => {
    switch (path) {
      case '/blade-auth/oauth/captcha':
        captchas += 1
        return { key: `k${captchas}`, image: `data:image/png;base64,c${captchas}` }
      case '/blade-system/tenant/info':
        return ok(domainTenant)
      case '/blade-auth/oauth/token':
        return signInFails
          ? { error_code: 400, code: 400, error_description: '验证码不正确' }
          : undefined
      case '/health':
        return ok({ status: 'ok', database: 'ok', version: '1', demoTenant })
      default:
        return undefined
    }
  })
})
afterEach(() => {
  cleanup()
  unmockHttp()
  useSessionStore.getState().logout()
})

const captchaCalls = () => calls.filter((c) => c.path === '/blade-auth/oauth/captcha').length
const image = () => screen.getByTestId('captcha-image').getAttribute('src')
const open = (client = testQueryClient()) =>
  renderInApp(
    <MemoryRouter>
      <Login />
    </MemoryRouter>,
    client,
  )

describe('login page', () => {
  it('asks the tenant of the site address and a captcha, and a new captcha when asked', async () => {
    open()
    await waitFor(() => expect(image()).toBe('data:image/png;base64,c1'))
    const lookup = calls.find((c) => c.path === '/blade-system/tenant/info')
    expect(lookup?.params.get('domain')).toBe(window.location.hostname)
    expect(screen.queryByTestId('login-tenant')).toBeNull()
    await waitFor(() =>
      expect(screen.getByTestId('login-submit')).toHaveProperty('disabled', false),
    )

    fireEvent.click(screen.getByTestId('captcha-image'))
    await waitFor(() => expect(image()).toBe('data:image/png;base64,c2'))
    expect(captchaCalls()).toBe(2)
  })

  it("offers the demo's tenant while the demo runs, and the last tenant signed in to before it", async () => {
    domainTenant = null
    demoTenant = 'demo'
    open()
    const field = await screen.findByTestId<HTMLInputElement>('login-tenant')
    await waitFor(() => expect(field.value).toBe('demo'))
    cleanup()
    localStorage.setItem('pv-last-tenant', '100001')
    open()
    const again = await screen.findByTestId<HTMLInputElement>('login-tenant')
    await waitFor(() => expect(calls.filter((c) => c.path === '/health').length).toBeGreaterThan(1))
    expect(again.value).toBe('100001')
  })

  it('after a failed attempt shows why, clears the code and fetches a new captcha', async () => {
    open()
    await waitFor(() => expect(image()).toBe('data:image/png;base64,c1'))
    await waitFor(() =>
      expect(screen.getByTestId('login-submit')).toHaveProperty('disabled', false),
    )
    fireEvent.change(screen.getByTestId('login-account'), { target: { value: 'admin' } })
    fireEvent.change(screen.getByTestId('login-password'), { target: { value: 'secret' } })
    fireEvent.change(screen.getByTestId('login-captcha'), { target: { value: 'abcd' } })
    fireEvent.click(screen.getByTestId('login-submit'))

    expect((await screen.findByTestId('login-error')).textContent).toContain('验证码不正确')
    const attempt = calls.find((c) => c.path === '/blade-auth/oauth/token')
    expect(attempt?.params.get('tenantId')).toBe('123456')
    expect(attempt?.params.get('username')).toBe('admin')
    await waitFor(() => expect(image()).toBe('data:image/png;base64,c2'))
    expect(captchaCalls()).toBe(2)
    expect(screen.getByTestId('login-captcha')).toHaveProperty('value', '')
    expect(useSessionStore.getState().token).toBeFalsy()
  })

  it('fetches a fresh captcha each time the page opens, even with one cached', async () => {
    const client = testQueryClient()
    open(client)
    await waitFor(() => expect(image()).toBe('data:image/png;base64,c1'))
    cleanup()
    open(client)
    await waitFor(() => expect(image()).toBe('data:image/png;base64,c2'))
    expect(captchaCalls()).toBe(2)
  })
})
