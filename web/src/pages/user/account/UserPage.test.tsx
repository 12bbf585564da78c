import { act, cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { clearDictCache } from '../../../hooks/useDict'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import UserPage from '.'

let calls: Call[] = []
beforeEach(async () => {
  await i18n.changeLanguage('zh')
  clearDictCache()
  calls = mockHttp((path) => {
    if (path === '/blade-user/page')
      return page([{ id: 'u1', account: 'alice', realName: '张三', roleName: '运维', status: 1 }])
    if (path.endsWith('/tree') || path.endsWith('/dictionary')) return ok([])
    if (path === '/blade-system/post/list') return page([])
    return ok(null)
  })
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

async function shown(permission: Record<string, true>) {
  act(() => useSessionStore.getState().setPermission(permission))
  renderInApp(<UserPage />)
  await screen.findByText('张三')
}

const select = (id: string) =>
  fireEvent.click(
    screen
      .getByTestId('crud-table')
      .querySelector(`tr[data-row-key="${id}"] input[type="checkbox"]`)!,
  )

describe('user screen', () => {
  it('shows each extra button only with its own permission code', async () => {
    await shown({ user_reset: true, personnel_role: true, role_grant: true })
    expect(screen.getByTestId('crud-action-reset')).toBeTruthy()
    expect(screen.queryByTestId('crud-action-role')).toBeNull()
    expect(screen.queryByTestId('crud-action-unlock')).toBeNull()
    expect(screen.queryByTestId('crud-action-audit-pass')).toBeNull()
    expect(screen.queryByTestId('crud-add')).toBeNull()
    cleanup()
    await shown({ user_role: true, user_unlock: true, user_edit: true })
    expect(screen.getByTestId('crud-action-role')).toBeTruthy()
    expect(screen.getByTestId('crud-action-unlock')).toBeTruthy()
    expect(screen.getByTestId('crud-action-audit-pass')).toBeTruthy()
    expect(screen.queryByTestId('crud-action-reset')).toBeNull()
  })

  it('resets the selected users after the confirm', async () => {
    await shown({ user_reset: true })
    select('u1')
    fireEvent.click(screen.getByTestId('crud-action-reset'))
    await screen.findAllByText('确定将选择账号密码重置为初始密码?')
    expect(calls.some((c) => c.path === '/blade-user/reset-password')).toBe(false)
    fireEvent.click(screen.getByTestId('crud-confirm-ok'))
    expect(await screen.findByText('操作成功')).toBeTruthy()
    const reset = calls.find((c) => c.path === '/blade-user/reset-password')!
    expect(reset.method).toBe('post')
    expect(reset.params.get('userIds')).toBe('u1')
  })

  it('refuses to add when the two passwords differ, and clears the error once they match', async () => {
    await shown({ user_add: true })
    fireEvent.click(screen.getByTestId('crud-add'))
    fireEvent.change(await screen.findByTestId('field-password'), { target: { value: 'secret1' } })
    fireEvent.change(screen.getByTestId('field-password2'), { target: { value: 'secret2' } })
    expect(await screen.findByText('两次密码输入不一致')).toBeTruthy()
    fireEvent.click(screen.getByTestId('crud-submit'))
    await screen.findByText('请输入账号')
    expect(calls.some((c) => c.path === '/blade-user/submit')).toBe(false)

    fireEvent.change(screen.getByTestId('field-password2'), { target: { value: 'secret1' } })
    await waitFor(() => expect(screen.queryByText('两次密码输入不一致')).toBeNull())
  })

  it('checks the username (1-16 characters) and phone (11 digits) rules', async () => {
    await shown({ user_add: true })
    fireEvent.click(screen.getByTestId('crud-add'))
    const account = await screen.findByTestId('field-account')
    fireEvent.change(account, { target: { value: 'bad name!' } })
    fireEvent.blur(account)
    expect(await screen.findByText('请输入正确的用户名')).toBeTruthy()
    const phone = screen.getByTestId('field-phone')
    fireEvent.change(phone, { target: { value: '2345' } })
    fireEvent.blur(phone)
    expect(await screen.findByText('请输入正确的11位手机号码')).toBeTruthy()
  })
})
