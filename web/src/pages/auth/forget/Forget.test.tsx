import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { MemoryRouter } from 'react-router-dom'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../../locales/i18n'
import { md5 } from '../../../utils/md5'
import { mockHttp, ok, unmockHttp, type Call } from '../../../test/http'
import { renderInApp, testQueryClient } from '../../../test/render'
import Forget from '.'

let calls: Call[] = []
beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path) => {
    if (path === '/blade-resource/sms/endpoint/send-validate')
      return ok({ id: '77', phone: '13800000001' })
    if (path === '/blade-user/phone/update-password') return ok(true)
    return undefined
  })
})
afterEach(() => {
  cleanup()
  unmockHttp()
})

const type = (id: string, value: string) =>
  fireEvent.change(screen.getByTestId(id), { target: { value } })

describe('forget page', () => {
  it('sends a code to the phone and resets the password with it, saying nothing about the account', async () => {
    renderInApp(
      <MemoryRouter>
        <Forget />
      </MemoryRouter>,
      testQueryClient(),
    )
    expect(screen.getByTestId('forget-submit')).toHaveProperty('disabled', true)
    type('forget-phone', '13800000001')
    fireEvent.click(screen.getByTestId('forget-send'))
    await screen.findByText(/如果该手机号绑定了账号/)
    const sent = calls.find((c) => c.path === '/blade-resource/sms/endpoint/send-validate')
    expect(new URLSearchParams(String(sent?.body)).get('phone')).toBe('13800000001')
    expect(screen.getByTestId('forget-send').textContent).toMatch(/秒后重发/)

    type('forget-code', '123456')
    type('forget-password', 'n3w-secret')
    type('forget-password1', 'n3w-secret')
    await waitFor(() =>
      expect(screen.getByTestId('forget-submit')).toHaveProperty('disabled', false),
    )
    fireEvent.click(screen.getByTestId('forget-submit'))
    await screen.findByTestId('forget-done')
    const reset = calls.find((c) => c.path === '/blade-user/phone/update-password')
    const form = new URLSearchParams(String(reset?.body))
    expect(form.get('id')).toBe('77')
    expect(form.get('value')).toBe('123456')
    expect(form.get('newPassword')).toBe(md5('n3w-secret'))
    expect(form.get('newPassword1')).toBe(md5('n3w-secret'))
  })
})
