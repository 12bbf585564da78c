import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { App, ConfigProvider } from 'antd'
import zhCN from 'antd/locale/zh_CN'
import type { AxiosAdapter } from 'axios'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import request, { configureRequest } from '../../api/request'
import i18n from '../../locales/i18n'
import { paramConfig, type Param } from '../../pages/system/param/config'
import { useSessionStore } from '../../stores/session'
import { withQueryClient } from '../../test/render'
import CrudPage from './CrudPage'
import type { CrudConfig } from './types'

const ok = (data: unknown) => ({ code: 200, success: true, data, msg: '操作成功' })

interface Call {
  method: string
  url: string
  body: unknown
}

const rows = [
  { id: '1', paramName: '站点名称', paramKey: 'site.name', paramValue: 'PV', remark: '' },
  { id: '2', paramName: '主题', paramKey: 'site.theme', paramValue: 'white', remark: 'r' },
]
let calls: Call[] = []
/** The answer to a call, by method and path (after /api). */
let answer: (path: string) => unknown
const notifyError = vi.fn<(text: string) => void>()

const allPermissions: Record<string, true> = {
  param_add: true,
  param_edit: true,
  param_delete: true,
  param_view: true,
}

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  calls = []
  notifyError.mockReset()
  configureRequest({ notifyError })
  answer = (path) => {
    if (path === '/blade-system/param/list')
      return ok({ records: rows, total: 42, size: 10, current: 1, pages: 5 })
    if (path === '/blade-system/param/detail') return ok(rows[0])
    return ok(null)
  }
  const adapter: AxiosAdapter = (config) => {
    const url = request.getUri(config)
    const method = config.method ?? 'get'
    const body: unknown = typeof config.data === 'string' ? JSON.parse(config.data) : config.data
    calls.push({ method, url, body })
    const path = url.replace(/^\/api/, '').split('?')[0]
    return Promise.resolve({
      data: answer(path),
      status: 200,
      statusText: '',
      headers: {},
      config,
    })
  }
  request.defaults.adapter = adapter
  act(() => useSessionStore.getState().setPermission(allPermissions))
})

afterEach(() => {
  cleanup()
  request.defaults.adapter = undefined
})

function renderPage(config: CrudConfig<Param> = paramConfig) {
  render(
    <ConfigProvider locale={zhCN}>
      <App>{withQueryClient(<CrudPage config={config} />)}</App>
    </ConfigProvider>,
  )
}

const listCalls = () => calls.filter((c) => c.url.includes('/param/list')).map((c) => c.url)
const callsTo = (part: string) => calls.filter((c) => c.url.includes(part))

async function shown(config?: CrudConfig<Param>) {
  renderPage(config)
  await screen.findByText('站点名称')
}

describe('CrudPage', () => {
  it('lists page 1 by 10, shows the total and the spec page sizes', async () => {
    await shown()
    expect(listCalls()).toEqual(['/api/blade-system/param/list?current=1&size=10'])
    expect(screen.getByText('共 42 条')).toBeTruthy()
    const sizeChanger = document.querySelector('.ant-pagination-options .ant-select')!
    fireEvent.mouseDown(sizeChanger.querySelector('.ant-select-selector') ?? sizeChanger)
    for (const size of [10, 30, 50, 100, 200]) {
      expect(await screen.findAllByTitle(`${size} 条/页`)).not.toHaveLength(0)
    }
  })

  it('searches with the filled fields as plain name=value from page 1, and resets', async () => {
    await shown()
    fireEvent.change(screen.getByTestId('search-paramName'), { target: { value: ' 站点 ' } })
    fireEvent.click(screen.getByTestId('crud-search'))
    await waitFor(() => expect(listCalls()).toHaveLength(2))
    expect(listCalls()[1]).toBe(
      `/api/blade-system/param/list?current=1&size=10&paramName=${encodeURIComponent('站点')}`,
    )
    fireEvent.click(screen.getByTestId('crud-reset'))
    await waitFor(() => expect(listCalls()).toHaveLength(3))
    expect(listCalls()[2]).toBe('/api/blade-system/param/list?current=1&size=10')
  })

  it('adds: required messages on blur, then submits without an id and says 新增成功', async () => {
    await shown()
    fireEvent.click(screen.getByTestId('crud-add'))
    const name = await screen.findByTestId('field-paramName')
    fireEvent.focus(name)
    fireEvent.blur(name)
    expect(await screen.findByText('请输入参数名称')).toBeTruthy()
    fireEvent.click(screen.getByTestId('crud-submit'))
    expect(await screen.findByText('请输入参数键名')).toBeTruthy()
    expect(await screen.findByText('请输入参数键值')).toBeTruthy()
    expect(callsTo('/submit')).toHaveLength(0)

    fireEvent.change(name, { target: { value: '新参数' } })
    fireEvent.change(screen.getByTestId('field-paramKey'), { target: { value: 'new.key' } })
    fireEvent.change(screen.getByTestId('field-paramValue'), { target: { value: 'v' } })
    fireEvent.click(screen.getByTestId('crud-submit'))
    expect(await screen.findByText('新增成功')).toBeTruthy()
    const [submit] = callsTo('/submit')
    expect(submit.method).toBe('post')
    expect(submit.url).toBe('/api/blade-system/param/submit')
    expect(submit.body).toEqual({
      paramName: '新参数',
      paramKey: 'new.key',
      paramValue: 'v',
      remark: null,
    })
    await waitFor(() => expect(listCalls()).toHaveLength(2))
  })

  it('edits: loads the detail, submits with the id and says 修改成功', async () => {
    await shown()
    fireEvent.click(screen.getAllByTestId('crud-row-edit')[0])
    const name = await screen.findByTestId('field-paramName')
    expect(callsTo('/detail')[0].url).toBe('/api/blade-system/param/detail?id=1')
    expect((name as HTMLInputElement).value).toBe('站点名称')
    fireEvent.change(name, { target: { value: '站点名' } })
    fireEvent.click(screen.getByTestId('crud-submit'))
    expect(await screen.findByText('修改成功')).toBeTruthy()
    expect(callsTo('/submit')[0].body).toEqual({
      id: '1',
      paramName: '站点名',
      paramKey: 'site.name',
      paramValue: 'PV',
      remark: '',
    })
  })

  it('keeps the dialog open and adds nothing when the server refuses (its toast says why)', async () => {
    answer = (path) =>
      path === '/blade-system/param/submit'
        ? { code: 400, success: false, data: null, msg: '参数键名已存在' }
        : path === '/blade-system/param/detail'
          ? ok(rows[0])
          : ok({ records: rows, total: 2, size: 10, current: 1, pages: 1 })
    await shown()
    fireEvent.click(screen.getAllByTestId('crud-row-edit')[0])
    await screen.findByTestId('field-paramName')
    fireEvent.click(screen.getByTestId('crud-submit'))
    await waitFor(() => expect(notifyError).toHaveBeenCalledExactlyOnceWith('参数键名已存在'))
    expect(screen.queryByText('修改成功')).toBeNull()
    expect(screen.getByTestId('crud-form')).toBeTruthy()
  })

  it('a new dialog starts from its own record, not what an earlier one held', async () => {
    await shown()
    fireEvent.click(screen.getByTestId('crud-add'))
    fireEvent.change(await screen.findByTestId('field-paramName'), { target: { value: 'typed' } })
    fireEvent.click(screen.getByTestId('crud-cancel'))
    fireEvent.click(screen.getAllByTestId('crud-row-edit')[0])
    await waitFor(() => expect(callsTo('/detail')).toHaveLength(1))
    await waitFor(() =>
      expect(screen.getByTestId<HTMLInputElement>('field-paramName').value).toBe('站点名称'),
    )
    fireEvent.click(screen.getByTestId('crud-cancel'))
    fireEvent.click(screen.getByTestId('crud-add'))
    await waitFor(() =>
      expect(screen.getByTestId<HTMLInputElement>('field-paramName').value).toBe(''),
    )
  })

  it("loads a form field's options once per opening, not again as the dialog closes", async () => {
    const loadOptions = vi.fn(() => Promise.resolve([{ value: 'a', label: 'A' }]))
    const withOptions: CrudConfig<Param> = {
      ...paramConfig,
      fields: [
        ...paramConfig.fields,
        { name: 'kind', label: 'param.remark', type: 'select', hideInTable: true, loadOptions },
      ],
    }
    await shown(withOptions)
    fireEvent.click(screen.getByTestId('crud-add'))
    await screen.findByTestId('field-kind')
    await waitFor(() => expect(loadOptions).toHaveBeenCalledTimes(1))
    fireEvent.click(screen.getByTestId('crud-cancel'))
    await act(() => new Promise((resolve) => setTimeout(resolve, 200)))
    expect(loadOptions).toHaveBeenCalledTimes(1)
    fireEvent.click(screen.getByTestId('crud-add'))
    await screen.findByTestId('field-kind')
    await waitFor(() => expect(loadOptions).toHaveBeenCalledTimes(2))
  })

  it('views read-only, without a save button', async () => {
    await shown()
    fireEvent.click(screen.getAllByTestId('crud-row-view')[0])
    const name = await screen.findByTestId('field-paramName')
    expect((name as HTMLInputElement).disabled).toBe(true)
    expect(screen.queryByTestId('crud-submit')).toBeNull()
    expect(screen.getByTestId('crud-close')).toBeTruthy()
  })

  it('deletes one row after the confirm', async () => {
    await shown()
    fireEvent.click(screen.getAllByTestId('crud-row-delete')[1])
    await screen.findAllByText('确定将选择数据删除?')
    expect(callsTo('/remove')).toHaveLength(0)
    fireEvent.click(screen.getByTestId('crud-delete-ok'))
    expect(await screen.findByText('删除成功')).toBeTruthy()
    expect(callsTo('/remove')[0].url).toBe('/api/blade-system/param/remove?ids=2')
    expect(callsTo('/remove')[0].method).toBe('post')
  })

  it('bulk delete with nothing selected warns and calls nothing', async () => {
    await shown()
    const before = calls.length
    fireEvent.click(screen.getByTestId('crud-bulk-delete'))
    expect(await screen.findByText('请选择至少一条数据')).toBeTruthy()
    expect(screen.queryByText('确定将选择数据删除?')).toBeNull()
    expect(calls).toHaveLength(before)
  })

  it('bulk deletes the selected rows, comma-joined', async () => {
    await shown()
    const table = screen.getByTestId('crud-table')
    for (const id of ['1', '2']) {
      fireEvent.click(table.querySelector(`tr[data-row-key="${id}"] input[type="checkbox"]`)!)
    }
    fireEvent.click(screen.getByTestId('crud-bulk-delete'))
    await screen.findAllByText('确定将选择数据删除?')
    fireEvent.click(screen.getByTestId('crud-delete-ok'))
    expect(await screen.findByText('删除成功')).toBeTruthy()
    expect(callsTo('/remove')[0].url).toBe('/api/blade-system/param/remove?ids=1,2')
  })

  it('shows only the buttons the user holds the permission for', async () => {
    act(() => useSessionStore.getState().setPermission({ param_view: true, post_add: true }))
    await shown()
    expect(screen.queryByTestId('crud-add')).toBeNull()
    expect(screen.queryByTestId('crud-bulk-delete')).toBeNull()
    expect(screen.queryAllByTestId('crud-row-edit')).toHaveLength(0)
    expect(screen.queryAllByTestId('crud-row-delete')).toHaveLength(0)
    expect(screen.getAllByTestId('crud-row-view')).toHaveLength(2)
    // No delete permission: no row selection either.
    expect(screen.getByTestId('crud-table').querySelector('input[type="checkbox"]')).toBeNull()
  })

  it('shows no action column without any row permission', async () => {
    act(() => useSessionStore.getState().setPermission({}))
    await shown()
    expect(screen.queryByText('操作')).toBeNull()
    expect(screen.queryByTestId('crud-add')).toBeNull()
  })

  it('offers edit and delete only on the rows the config says are editable', async () => {
    await shown({ ...paramConfig, rowEditable: (row) => row.id !== '2' })
    const table = screen.getByTestId('crud-table')
    const row = (id: string) => table.querySelector(`tr[data-row-key="${id}"]`)!
    expect(row('1').querySelector('[data-testid="crud-row-edit"]')).not.toBeNull()
    expect(row('1').querySelector('[data-testid="crud-row-delete"]')).not.toBeNull()
    expect(row('2').querySelector('[data-testid="crud-row-edit"]')).toBeNull()
    expect(row('2').querySelector('[data-testid="crud-row-delete"]')).toBeNull()
    // Still viewable, and not to be picked for a bulk delete.
    expect(row('2').querySelector('[data-testid="crud-row-view"]')).not.toBeNull()
    const box = (id: string) => row(id).querySelector<HTMLInputElement>('input[type="checkbox"]')!
    expect(box('2').disabled).toBe(true)
    expect(box('1').disabled).toBe(false)
  })
})
