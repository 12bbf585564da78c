import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import OwnerPage from '.'

let calls: Call[] = []
beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path) =>
    path === '/blade-user/pageOwner'
      ? page([{ id: 'o1', account: 'owner1', realName: '业主甲', companyName: '阳光' }])
      : ok(null),
  )
  act(() => useSessionStore.getState().setPermission({ owner_add: true }))
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

describe('owner screen', () => {
  it('lists pageOwner and saves with saveOwner only when the password is longer than 6', async () => {
    renderInApp(<OwnerPage />)
    await screen.findByText('业主甲')
    fireEvent.click(screen.getByTestId('crud-add'))
    fireEvent.change(await screen.findByTestId('field-account'), { target: { value: 'owner2' } })
    fireEvent.change(screen.getByTestId('field-realName'), { target: { value: '业主乙' } })
    const password = screen.getByTestId('field-password')
    fireEvent.change(password, { target: { value: '123456' } })
    fireEvent.click(screen.getByTestId('crud-submit'))
    expect(await screen.findByText('密码长度必须大于6位')).toBeTruthy()
    expect(calls.some((c) => c.path === '/blade-user/saveOwner')).toBe(false)

    fireEvent.change(password, { target: { value: '1234567' } })
    fireEvent.blur(password)
    await waitFor(() => expect(screen.queryByText('密码长度必须大于6位')).toBeNull())
    fireEvent.click(screen.getByTestId('crud-submit'))
    expect(await screen.findByText('新增成功')).toBeTruthy()
    const save = calls.find((c) => c.path === '/blade-user/saveOwner')!
    expect(save.body).toMatchObject({ account: 'owner2', realName: '业主乙', password: '1234567' })
  })
})
