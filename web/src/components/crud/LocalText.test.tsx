/**
 * A page as the code generator writes one (docs/develop.md: `pages/business/{folder}/config.ts`),
 * written out here by hand: its texts are `{ zh, en }` pairs, not message keys, and show in the
 * console's language in the table, the search form, the options and the form's messages.
 */
import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { entityApi } from '../../api/crud'
import i18n from '../../locales/i18n'
import { useSessionStore } from '../../stores/session'
import { mockHttp, page, unmockHttp, type Call } from '../../test/http'
import { renderInApp } from '../../test/render'
import CrudPage from './CrudPage'
import type { CrudConfig } from './types'

// web/src/api/business/sparePart.ts
interface SparePart {
  id?: string
  partName: string
  category?: number | null
  quantity?: number | null
  purchaseDate?: string | null
}
const sparePartApi = entityApi<SparePart>({ style: 'blade', base: '/blade-business/spare-part' })

// web/src/pages/business/sparePart/config.ts
const sparePartConfig: CrudConfig<SparePart> = {
  menuCode: 'sparePart',
  api: sparePartApi,
  fields: [
    { name: 'id', label: { zh: '编号', en: 'ID' }, hideInTable: true, hideInForm: true },
    {
      name: 'partName',
      label: { zh: '备件名称', en: 'Part name' },
      required: { zh: '请输入备件名称', en: 'Please enter the part name' },
      max: 64,
      search: true,
    },
    {
      name: 'category',
      label: { zh: '类别', en: 'Category' },
      type: 'select',
      search: true,
      options: [
        { value: 1, label: { zh: '组件', en: 'Module' } },
        { value: 2, label: { zh: '逆变器', en: 'Inverter' } },
      ],
    },
    {
      name: 'quantity',
      label: { zh: '数量', en: 'Quantity' },
      type: 'number',
      required: { zh: '请输入数量', en: 'Please enter the quantity' },
      range: { min: 0, max: 9999 },
    },
    { name: 'purchaseDate', label: { zh: '采购日期', en: 'Purchase date' }, type: 'date' },
  ],
}

let calls: Call[] = []

beforeEach(() => {
  calls = mockHttp((path) =>
    path === '/blade-business/spare-part/list'
      ? page([{ id: '1', partName: 'MC4 接头', category: 1, quantity: 40 }])
      : undefined,
  )
  act(() => useSessionStore.getState().setPermission({ sparePart_add: true, sparePart_edit: true }))
})

afterEach(async () => {
  cleanup()
  unmockHttp()
  await i18n.changeLanguage('zh')
})

const headers = () =>
  within(screen.getByTestId('crud-table'))
    .getAllByRole('columnheader')
    .map((th) => th.textContent)

describe('a generated page with its own zh/en text', () => {
  it('shows its labels and options in Chinese, and its own required message', async () => {
    await i18n.changeLanguage('zh')
    renderInApp(<CrudPage config={sparePartConfig} />)
    await screen.findByText('MC4 接头')
    expect(headers()).toEqual(expect.arrayContaining(['备件名称', '类别', '数量', '采购日期']))
    expect(within(screen.getByTestId('crud-table')).getByText('组件')).toBeTruthy()
    const search = screen.getByTestId('crud-search-form')
    expect(within(search).getByText('备件名称')).toBeTruthy()
    expect(within(search).getByPlaceholderText('请输入备件名称')).toBeTruthy()

    fireEvent.click(screen.getByTestId('crud-add'))
    const form = await screen.findByTestId('crud-form')
    expect(within(form).getByText('采购日期')).toBeTruthy()
    fireEvent.click(screen.getByTestId('crud-submit'))
    await within(form).findByText('请输入备件名称')
    await within(form).findByText('请输入数量')
    expect(calls.some((c) => c.path.endsWith('/submit'))).toBe(false)
  })

  it('shows the same page in English', async () => {
    await i18n.changeLanguage('en')
    renderInApp(<CrudPage config={sparePartConfig} />)
    await screen.findByText('MC4 接头')
    expect(headers()).toEqual(
      expect.arrayContaining(['Part name', 'Category', 'Quantity', 'Purchase date']),
    )
    expect(within(screen.getByTestId('crud-table')).getByText('Module')).toBeTruthy()

    fireEvent.click(screen.getByTestId('crud-add'))
    const form = await screen.findByTestId('crud-form')
    fireEvent.change(within(form).getByTestId('field-partName'), {
      target: { value: 'x'.repeat(65) },
    })
    fireEvent.blur(within(form).getByTestId('field-partName'))
    await within(form).findByText('Part name cannot exceed 64 characters')
    fireEvent.click(screen.getByTestId('crud-submit'))
    await within(form).findByText('Please enter the quantity')
  })

  it('saves through its API module', async () => {
    await i18n.changeLanguage('zh')
    renderInApp(<CrudPage config={sparePartConfig} />)
    await screen.findByText('MC4 接头')
    fireEvent.click(screen.getByTestId('crud-add'))
    const form = await screen.findByTestId('crud-form')
    fireEvent.change(within(form).getByTestId('field-partName'), { target: { value: '熔断器' } })
    fireEvent.change(within(form).getByTestId('field-quantity'), { target: { value: '12' } })
    fireEvent.click(screen.getByTestId('crud-submit'))
    await waitFor(() =>
      expect(calls.find((c) => c.path === '/blade-business/spare-part/submit')?.body).toEqual({
        partName: '熔断器',
        category: null,
        quantity: 12,
        purchaseDate: null,
      }),
    )
  })
})
