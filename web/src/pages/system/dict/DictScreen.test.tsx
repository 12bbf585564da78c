import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../../locales/i18n'
import { useSessionStore } from '../../../stores/session'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import DictScreen from './DictScreen'

const sex = {
  id: 'd1',
  parentId: '0',
  code: 'sex',
  dictKey: '-1',
  dictValue: '性别',
  sort: 1,
  isSealed: 0,
}
const male = {
  id: 'e1',
  parentId: 'd1',
  code: 'sex',
  dictKey: '1',
  dictValue: '男',
  sort: 1,
  isSealed: 0,
}

let calls: Call[] = []
beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = mockHttp((path) => {
    if (path === '/blade-system/dict-biz/list') return page([sex])
    if (path === '/blade-system/dict-biz/child-list') return page([male])
    // A detail out of step with its dictionary: the forced values must win.
    if (path === '/blade-system/dict-biz/detail')
      return ok({ ...male, code: 'old', parentId: 'old' })
    return ok(null)
  })
  act(() =>
    useSessionStore
      .getState()
      .setPermission({ dictbiz_view: true, dictbiz_add: true, dictbiz_edit: true }),
  )
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

async function openEntries() {
  renderInApp(<DictScreen kind="dict-biz" />)
  await screen.findByText('性别')
  fireEvent.click(screen.getByTestId('crud-row-config'))
  const drawer = await screen.findByTestId('dict-entries')
  await within(drawer).findByText('男')
  return drawer
}

describe('dictionary entries', () => {
  it('lists the entries of the dictionary picked (child-list?parentId=)', async () => {
    await openEntries()
    const child = calls.find((c) => c.path === '/blade-system/dict-biz/child-list')!
    expect(child.params.get('parentId')).toBe('d1')
  })

  it('adds an entry with the code and parent forced to the dictionary, not editable', async () => {
    const drawer = await openEntries()
    fireEvent.click(within(drawer).getByTestId('crud-add'))
    const code = await screen.findByTestId('field-code')
    expect((code as HTMLInputElement).value).toBe('sex')
    expect((code as HTMLInputElement).disabled).toBe(true)
    fireEvent.change(screen.getByTestId('field-dictKey'), { target: { value: '2' } })
    fireEvent.change(screen.getByTestId('field-dictValue'), { target: { value: '女' } })
    fireEvent.click(screen.getByTestId('crud-submit'))
    expect(await screen.findByText('新增成功')).toBeTruthy()
    const submit = calls.find((c) => c.path === '/blade-system/dict-biz/submit')!
    expect(submit.body).toMatchObject({
      code: 'sex',
      parentId: 'd1',
      dictKey: '2',
      dictValue: '女',
      isSealed: 0,
    })
    expect(submit.body).not.toHaveProperty('id')
  })

  it('keeps the forced code and parent when editing, whatever the form held', async () => {
    await openEntries()
    fireEvent.click(screen.getAllByTestId('crud-row-edit').at(-1)!)
    await waitFor(() =>
      expect(screen.getByTestId<HTMLInputElement>('field-dictValue').value).toBe('男'),
    )
    expect(screen.getByTestId<HTMLInputElement>('field-code').value).toBe('sex')
    expect(screen.getByTestId<HTMLInputElement>('field-code').disabled).toBe(true)
    fireEvent.click(screen.getByTestId('crud-submit'))
    expect(await screen.findByText('修改成功')).toBeTruthy()
    const submit = calls.find((c) => c.path === '/blade-system/dict-biz/submit')!
    expect(submit.body).toMatchObject({ id: 'e1', code: 'sex', parentId: 'd1' })
  })

  it('requires the fields, each with its own message', async () => {
    renderInApp(<DictScreen kind="dict-biz" />)
    await screen.findByText('性别')
    fireEvent.click(screen.getByTestId('crud-add'))
    await screen.findByTestId('field-code')
    fireEvent.click(screen.getByTestId('crud-submit'))
    expect(await screen.findByText('请输入字典编号')).toBeTruthy()
    expect(await screen.findByText('请输入字典名称')).toBeTruthy()
    expect(calls.some((c) => c.path.endsWith('/submit'))).toBe(false)
  })

  it("shows the platform's business dictionaries read-only, the tenant's own editable", async () => {
    act(() => {
      useSessionStore.getState().setTenantId('100001')
      useSessionStore
        .getState()
        .setPermission({ dictbiz_view: true, dictbiz_edit: true, dictbiz_delete: true })
    })
    unmockHttp()
    const platform = { ...sex, tenantId: '000000' }
    const own = { ...sex, id: 'd2', code: 'tier', dictValue: '等级', tenantId: '100001' }
    calls = mockHttp((path) =>
      path === '/blade-system/dict-biz/list' ? page([platform, own]) : ok(null),
    )
    renderInApp(<DictScreen kind="dict-biz" />)
    await screen.findByText('等级')
    const table = screen.getByTestId('crud-table')
    const row = (id: string) =>
      within(table.querySelector<HTMLElement>(`tr[data-row-key="${id}"]`)!)
    expect(row('d1').queryByTestId('crud-row-edit')).toBeNull()
    expect(row('d1').queryByTestId('crud-row-delete')).toBeNull()
    expect(row('d1').getByTestId('crud-row-config')).toBeTruthy()
    expect(row('d2').getByTestId('crud-row-edit')).toBeTruthy()
    expect(row('d2').getByTestId('crud-row-delete')).toBeTruthy()
  })
})
