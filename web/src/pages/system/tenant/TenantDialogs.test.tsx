import { cleanup, fireEvent, screen, waitFor } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../../locales/i18n'
import type { Tenant } from '../../../api/system/tenant'
import { mockHttp, ok, page, unmockHttp, type Call } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import { choose, clearSelect, selectedText } from '../../../test/select'
import TenantDialogs from './TenantDialogs'

const tenant: Tenant = { id: '1', tenantId: '100001', tenantName: '演示' }
let datasources: unknown = null
let calls: Call[] = []
let done = 0

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  done = 0
  calls = mockHttp((path) =>
    path === '/blade-develop/datasource/list'
      ? datasources
      : path === '/blade-system/tenant/datasource'
        ? ok(true)
        : { code: 404, success: false, msg: '未找到' },
  )
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

const open = (of: Tenant = tenant) =>
  renderInApp(
    <TenantDialogs
      dialog={{ kind: 'datasource', tenant: of }}
      onClose={() => undefined}
      onDone={() => done++}
    />,
  )

const bindCall = async () => {
  await waitFor(() => expect(done).toBe(1))
  const call = calls.find((c) => c.path === '/blade-system/tenant/datasource')
  expect(call?.method).toBe('post')
  return call?.params
}

describe('the tenant data source dialog', () => {
  it('says so when the data source list cannot be read, and saves nothing', async () => {
    datasources = { code: 403, success: false, msg: '无权访问' }
    open()
    const note = await screen.findByTestId('tenant-datasource-unavailable')
    expect(note.textContent).toContain('无法读取数据源列表')
    expect(screen.getByTestId('tenant-dialog-ok').hasAttribute('disabled')).toBe(true)
  })

  it('says there are none yet when the list is empty (in English too)', async () => {
    await i18n.changeLanguage('en')
    datasources = page([])
    open()
    const note = await screen.findByTestId('tenant-datasource-unavailable')
    expect(note.textContent).toContain('There are no data sources yet')
  })

  it('binds the tenant to a data source picked by name', async () => {
    datasources = page([
      { id: '7', name: '备件库', category: 1, url: 'spare.db' },
      { id: '8', name: '合同库', category: 2, url: 'postgres://db/contracts' },
    ])
    open()
    await choose('tenant-datasource-select', '合同库')
    fireEvent.click(screen.getByTestId('tenant-dialog-ok'))
    const params = await bindCall()
    expect(params?.get('tenantId')).toBe('100001')
    expect(params?.get('datasourceId')).toBe('8')
  })

  it('shows the bound data source and unbinds it when cleared', async () => {
    datasources = page([{ id: '7', name: '备件库', category: 1, url: 'spare.db' }])
    open({ ...tenant, datasourceId: '7' })
    await waitFor(() => expect(selectedText('tenant-datasource-select')).toBe('备件库'))
    clearSelect('tenant-datasource-select')
    fireEvent.click(screen.getByTestId('tenant-dialog-ok'))
    const params = await bindCall()
    expect(params?.get('tenantId')).toBe('100001')
    expect(params?.get('datasourceId')).toBe('')
  })
})
