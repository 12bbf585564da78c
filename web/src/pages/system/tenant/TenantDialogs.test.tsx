import { cleanup, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import i18n from '../../../locales/i18n'
import { mockHttp, page, unmockHttp } from '../../../test/http'
import { renderInApp } from '../../../test/render'
import TenantDialogs from './TenantDialogs'

const tenant = { id: '1', tenantId: '100001', tenantName: '演示' }
let datasources: unknown = null

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  mockHttp((path) =>
    path === '/blade-develop/datasource/list'
      ? datasources
      : { code: 404, success: false, msg: '未找到' },
  )
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

const open = () =>
  renderInApp(
    <TenantDialogs
      dialog={{ kind: 'datasource', tenant }}
      onClose={() => undefined}
      onDone={() => undefined}
    />,
  )

describe('the tenant data source dialog', () => {
  it('says data sources are not available while their list does not answer, and saves nothing', async () => {
    datasources = { code: 404, success: false, msg: '未找到' }
    open()
    const note = await screen.findByTestId('tenant-datasource-unavailable')
    expect(note.textContent).toContain('数据源功能尚未开放')
    expect(screen.getByTestId('tenant-dialog-ok').hasAttribute('disabled')).toBe(true)
  })

  it('says there are none yet when the list is empty (in English too)', async () => {
    await i18n.changeLanguage('en')
    datasources = page([])
    open()
    const note = await screen.findByTestId('tenant-datasource-unavailable')
    expect(note.textContent).toContain('There are no data sources yet')
  })
})
