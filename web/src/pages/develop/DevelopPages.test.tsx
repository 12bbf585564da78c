import { act, cleanup, fireEvent, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { configureRequest } from '../../api/request'
import i18n from '../../locales/i18n'
import { useSessionStore } from '../../stores/session'
import { mockHttp, ok, page, RawAnswer, unmockHttp, type Call } from '../../test/http'
import { renderInApp } from '../../test/render'
import { choose } from '../../test/select'
import CodePage from './code'
import DatasourcePage from './datasource'
import ModelPage from './model'

const sqliteRow = { id: '7', name: '备件库', category: 1, url: 'spare.db', passwordSet: false }
const pgRow = {
  id: '8',
  name: '合同库',
  category: 2,
  url: 'postgres://127.0.0.1:5432/contracts',
  username: 'pv',
  passwordSet: true,
}
const modelRow = {
  id: '5',
  datasourceId: '7',
  datasourceName: '备件库',
  modelName: '备品备件',
  modelCode: 'spare_part',
  modelTable: 'spare_part',
}
const proto = (jdbcName: string, over: Record<string, unknown> = {}) => ({
  id: `p-${jdbcName}`,
  modelId: '5',
  jdbcName,
  jdbcType: 'VARCHAR(64)',
  propertyName: jdbcName.replace(/_(\w)/g, (_, c: string) => c.toUpperCase()),
  propertyType: 'string',
  labelZh: jdbcName,
  labelEn: jdbcName,
  component: 'input',
  required: false,
  list: true,
  search: false,
  form: true,
  dictCode: null,
  maxLength: 64,
  minValue: null,
  maxValue: null,
  sort: 1,
  ...over,
})
const codeRow = {
  id: '3',
  modelId: '5',
  modelName: '备品备件',
  codeName: '备品备件',
  codeNameEn: 'Spare parts',
  moduleName: 'spare_part',
  tenantScoped: 1,
}

let calls: Call[] = []
/** Answers by path that a test sets before the defaults below. */
let answers: Record<string, unknown> = {}
const notifyError = vi.fn<(text: string) => void>()

beforeEach(async () => {
  await i18n.changeLanguage('zh')
  answers = {}
  notifyError.mockReset()
  configureRequest({ notifyError })
  calls = mockHttp((path) => {
    if (Object.hasOwn(answers, path)) return answers[path]
    switch (path) {
      case '/blade-develop/datasource/list':
        return page([sqliteRow, pgRow])
      case '/blade-develop/datasource/detail':
        return ok(pgRow)
      case '/blade-develop/model/list':
        return page([modelRow])
      case '/blade-develop/model/table-list':
        return ok([{ name: 'spare_part', comment: '备品备件' }, { name: 'supplier' }])
      case '/blade-develop/model/model-prototype':
        return ok([
          proto('quantity', { propertyType: 'integer', component: 'number', sort: 2 }),
          proto('part_name', { sort: 1 }),
        ])
      case '/blade-develop/code/list':
        return page([codeRow])
      default:
        return ok(true)
    }
  })
  act(() =>
    useSessionStore
      .getState()
      .setPermission(
        Object.fromEntries(
          [
            'datasource_add',
            'datasource_edit',
            'datasource_delete',
            'model_add',
            'model_edit',
            'code_add',
            'code_view',
            'code_gen',
            'code_copy',
          ].map((code) => [code, true as const]),
        ),
      ),
  )
})

afterEach(() => {
  cleanup()
  unmockHttp()
})

const callTo = (path: string) => calls.find((c) => c.path === path)
const field = (name: string) => screen.queryByTestId(`field-${name}`)
const type = (name: string, value: string) => {
  const input = screen.getByTestId(`field-${name}`)
  fireEvent.change(input, { target: { value } })
  fireEvent.blur(input)
}

describe('data sources', () => {
  it('adds a SQLite file: no account fields, the test shows the server version, and saves', async () => {
    renderInApp(<DatasourcePage />)
    await screen.findByText('备件库')
    fireEvent.click(screen.getByTestId('crud-add'))
    await screen.findByTestId('crud-form')
    expect(field('username')).toBeNull()
    expect(field('password')).toBeNull()
    type('name', '备件库2')
    type('url', 'spare2.db')
    answers['/blade-develop/datasource/test'] = ok({ version: 'SQLite 3.46.0', tables: 3 })
    fireEvent.click(screen.getByTestId('crud-form-test'))
    const result = await screen.findByTestId('crud-form-result')
    expect(result.textContent).toBe('连接成功：SQLite 3.46.0，共 3 张表')
    expect(callTo('/blade-develop/datasource/test')?.body).toEqual({
      category: 1,
      url: 'spare2.db',
    })

    fireEvent.click(screen.getByTestId('crud-submit'))
    await waitFor(() => expect(callTo('/blade-develop/datasource/submit')).toBeDefined())
    expect(callTo('/blade-develop/datasource/submit')?.body).toEqual({
      name: '备件库2',
      category: 1,
      url: 'spare2.db',
      username: null,
      remark: null,
    })
  })

  it('refuses a path as a SQLite file before testing', async () => {
    renderInApp(<DatasourcePage />)
    await screen.findByText('备件库')
    fireEvent.click(screen.getByTestId('crud-add'))
    await screen.findByTestId('crud-form')
    type('url', '../etc/spare.db')
    fireEvent.click(screen.getByTestId('crud-form-test'))
    await screen.findByText('SQLite 连接地址只能是文件名，不能含 / 或 ..')
    expect(callTo('/blade-develop/datasource/test')).toBeUndefined()
  })

  it('PostgreSQL asks for the account; a failed test shows the database’s own words', async () => {
    renderInApp(<DatasourcePage />)
    await screen.findByText('备件库')
    fireEvent.click(screen.getByTestId('crud-add'))
    await screen.findByTestId('crud-form')
    await choose('field-category', 'PostgreSQL')
    await screen.findByTestId('field-username')
    type('url', 'postgres://127.0.0.1:5432/contracts')
    type('username', 'pv')
    type('password', 'wrong')
    answers['/blade-develop/datasource/test'] = new RawAnswer(
      { code: 400, success: false, msg: '连接失败：password authentication failed for user "pv"' },
      {},
      400,
    )
    fireEvent.click(screen.getByTestId('crud-form-test'))
    const result = await screen.findByTestId('crud-form-result')
    expect(result.textContent).toBe('连接失败：password authentication failed for user "pv"')
    // Shown in the dialog, not toasted as well.
    expect(notifyError).not.toHaveBeenCalled()
    expect(callTo('/blade-develop/datasource/test')?.body).toEqual({
      category: 2,
      url: 'postgres://127.0.0.1:5432/contracts',
      username: 'pv',
      password: 'wrong',
    })
  })

  it('editing says a password is set and keeps it when left empty', async () => {
    renderInApp(<DatasourcePage />)
    await screen.findByText('合同库')
    const row = screen.getByText('合同库').closest('tr') as HTMLElement
    expect(within(row).getByText('已设置')).toBeTruthy()
    fireEvent.click(within(row).getByTestId('crud-row-edit'))
    await screen.findByText('已设置，留空则保留原密码')
    fireEvent.click(screen.getByTestId('crud-submit'))
    await waitFor(() => expect(callTo('/blade-develop/datasource/submit')).toBeDefined())
    const body = callTo('/blade-develop/datasource/submit')?.body as Record<string, unknown>
    expect(body).toMatchObject({ id: '8', category: 2, username: 'pv' })
    expect('password' in body).toBe(false)
    expect('passwordSet' in body).toBe(false)
  })

  it('tests a saved data source from its row with the stored password', async () => {
    renderInApp(<DatasourcePage />)
    await screen.findByText('合同库')
    answers['/blade-develop/datasource/test'] = ok({ version: 'PostgreSQL 16.4', tables: 12 })
    const row = screen.getByText('合同库').closest('tr') as HTMLElement
    fireEvent.click(within(row).getByTestId('crud-row-test'))
    const result = await screen.findByTestId('datasource-test-result')
    expect(result.textContent).toBe('连接成功：PostgreSQL 16.4，共 12 张表')
    expect(callTo('/blade-develop/datasource/test')?.body).toEqual({
      id: '8',
      category: 2,
      url: 'postgres://127.0.0.1:5432/contracts',
      username: 'pv',
    })
  })
})

describe('models', () => {
  it('picks the table from the chosen data source', async () => {
    renderInApp(<ModelPage />)
    await screen.findByText('备品备件')
    fireEvent.click(screen.getByTestId('crud-add'))
    await screen.findByTestId('crud-form')
    type('modelName', '备品备件')
    type('modelCode', 'spare_part')
    await choose('field-datasourceId', '备件库')
    await choose('field-modelTable', 'spare_part · 备品备件')
    expect(callTo('/blade-develop/model/table-list')?.params.get('datasourceId')).toBe('7')
    fireEvent.click(screen.getByTestId('crud-submit'))
    await waitFor(() => expect(callTo('/blade-develop/model/submit')).toBeDefined())
    expect(callTo('/blade-develop/model/submit')?.body).toEqual({
      modelName: '备品备件',
      modelCode: 'spare_part',
      datasourceId: '7',
      modelTable: 'spare_part',
      modelRemark: null,
    })
  })

  it('wants a model code the generator can use', async () => {
    renderInApp(<ModelPage />)
    await screen.findByText('备品备件')
    fireEvent.click(screen.getByTestId('crud-add'))
    await screen.findByTestId('crud-form')
    type('modelCode', 'Spare-Part')
    await screen.findByText('以小写字母开头，只含小写字母、数字和下划线，共 2–40 位')
  })

  it('edits the field settings in a grid and saves them all at once', async () => {
    renderInApp(<ModelPage />)
    await screen.findByText('备品备件')
    fireEvent.click(screen.getByTestId('crud-row-fields'))
    const label = await screen.findByTestId('proto-part_name-labelZh')
    expect(callTo('/blade-develop/model/model-prototype')?.params.get('modelId')).toBe('5')
    // In sort order.
    const grid = screen.getByTestId('field-settings-table')
    const order = within(grid)
      .getAllByText(/^(part_name|quantity)$/, { selector: 'strong' })
      .map((cell) => cell.textContent)
    expect(order).toEqual(['part_name', 'quantity'])
    // Only numbers have bounds, only text a length.
    expect(screen.getByTestId('proto-part_name-minValue').hasAttribute('disabled')).toBe(true)
    expect(screen.getByTestId('proto-quantity-maxLength').hasAttribute('disabled')).toBe(true)

    fireEvent.change(label, { target: { value: '备件名称' } })
    fireEvent.change(screen.getByTestId('proto-part_name-labelEn'), {
      target: { value: 'Part name' },
    })
    fireEvent.click(screen.getByTestId('proto-part_name-search'))
    fireEvent.click(screen.getByTestId('proto-quantity-required'))
    fireEvent.change(screen.getByTestId('proto-quantity-maxValue'), { target: { value: '999' } })
    fireEvent.click(screen.getByTestId('field-settings-save'))
    await waitFor(() => expect(callTo('/blade-develop/model-prototype/submit-list')).toBeDefined())
    const saved = callTo('/blade-develop/model-prototype/submit-list')?.body as Record<
      string,
      unknown
    >[]
    expect(saved).toHaveLength(2)
    expect(saved[0]).toMatchObject({
      id: 'p-part_name',
      modelId: '5',
      labelZh: '备件名称',
      labelEn: 'Part name',
      search: true,
    })
    expect(saved[1]).toMatchObject({ jdbcName: 'quantity', required: true, maxValue: 999 })
    await screen.findByText('字段设置已保存')
  })

  it('does not save settings with a missing label, and says which column', async () => {
    renderInApp(<ModelPage />)
    await screen.findByText('备品备件')
    fireEvent.click(screen.getByTestId('crud-row-fields'))
    const labelEn = await screen.findByTestId('proto-quantity-labelEn')
    fireEvent.change(labelEn, { target: { value: '' } })
    fireEvent.click(screen.getByTestId('field-settings-save'))
    await screen.findByText('请填写字段 quantity 的中文和英文名称')
    expect(callTo('/blade-develop/model-prototype/submit-list')).toBeUndefined()
  })
})

describe('code generator', () => {
  const files = [
    {
      path: 'cloud/src/business/spare_part.rs',
      language: 'rust',
      content: '/// Spare parts.\npub struct SparePart {\n    pub part_name: String,\n}\n',
    },
    {
      path: 'web/src/pages/business/sparePart/index.tsx',
      language: 'tsx',
      content: 'export default function SparePartPage() {\n  return <CrudPage config={c} />\n}\n',
    },
  ]

  it('previews every generated file, highlighted, and copies one', async () => {
    const writeText = vi.fn(() => Promise.resolve())
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } })
    answers['/blade-develop/code/preview'] = ok(files)
    renderInApp(<CodePage />)
    await screen.findByText('Spare parts')
    fireEvent.click(screen.getByTestId('crud-row-preview'))
    await screen.findByText('spare_part.rs')
    expect(callTo('/blade-develop/code/preview')?.params.get('id')).toBe('3')
    expect(screen.getByText('index.tsx')).toBeTruthy()
    const shown = screen.getAllByTestId('code-view')[0]
    expect(shown.textContent).toBe(files[0].content)
    const keywords = Array.from(shown.querySelectorAll('.hljs-keyword'), (k) => k.textContent)
    expect(keywords).toEqual(expect.arrayContaining(['pub', 'struct']))
    expect(shown.querySelector('.hljs-comment')?.textContent).toBe('/// Spare parts.')
    fireEvent.click(screen.getAllByTestId('code-preview-copy')[0])
    await waitFor(() => expect(writeText).toHaveBeenCalledWith(files[0].content))
    await screen.findByText('已复制到剪贴板')

    fireEvent.click(screen.getByText('index.tsx'))
    await waitFor(() =>
      expect(
        Array.from(document.querySelectorAll('.code-view .hljs-keyword'), (k) => k.textContent),
      ).toEqual(expect.arrayContaining(['export', 'default', 'function', 'return'])),
    )
  })

  it('copies a row after asking', async () => {
    renderInApp(<CodePage />)
    await screen.findByText('Spare parts')
    fireEvent.click(screen.getByTestId('crud-row-copy'))
    const ok = await screen.findByTestId('crud-confirm-ok')
    expect(document.querySelector('.ant-modal-confirm-title')?.textContent).toBe(
      '复制这条代码生成配置？',
    )
    fireEvent.click(ok)
    await waitFor(() => expect(callTo('/blade-develop/code/copy')?.params.get('id')).toBe('3'))
    expect(callTo('/blade-develop/code/copy')?.method).toBe('post')
  })

  it('downloads the zip of a row, named by the server', async () => {
    const createObjectURL = vi.fn((blob: Blob) => `blob:${blob.size}`)
    URL.createObjectURL = createObjectURL
    URL.revokeObjectURL = vi.fn()
    const clicked: string[] = []
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push(this.download)
    })
    const zip = new Blob([new Uint8Array([0x50, 0x4b, 3, 4])], { type: 'application/zip' })
    answers['/blade-develop/code/gen-code'] = new RawAnswer(zip, {
      'content-type': 'application/zip',
      'content-disposition': 'attachment; filename="code-20261129120000.zip"',
    })
    renderInApp(<CodePage />)
    await screen.findByText('Spare parts')
    fireEvent.click(screen.getByTestId('crud-row-gen'))
    await screen.findByText('已下载 code-20261129120000.zip')
    const call = callTo('/blade-develop/code/gen-code')
    expect(call?.method).toBe('post')
    expect(call?.params.get('ids')).toBe('3')
    expect(call?.params.get('system')).toBe('saber')
    expect(createObjectURL).toHaveBeenCalledWith(zip)
    expect(clicked).toEqual(['code-20261129120000.zip'])
    click.mockRestore()
  })

  it('generates for the selected rows from the toolbar, and wants a selection', async () => {
    answers['/blade-develop/code/gen-code'] = new RawAnswer(
      new Blob([JSON.stringify({ code: 400, success: false, msg: '不支持的目标系统' })]),
      {},
      400,
    )
    renderInApp(<CodePage />)
    await screen.findByText('Spare parts')
    fireEvent.click(screen.getByTestId('crud-action-gen'))
    await screen.findByText('请选择至少一条数据')
    expect(callTo('/blade-develop/code/gen-code')).toBeUndefined()
    const row = screen.getByText('Spare parts').closest('tr') as HTMLElement
    fireEvent.click(within(row).getByRole('checkbox'))
    fireEvent.click(screen.getByTestId('crud-action-gen'))
    // A refusal comes back as an envelope inside the blob, and is shown.
    await waitFor(() => expect(notifyError).toHaveBeenCalledWith('不支持的目标系统'))
    expect(callTo('/blade-develop/code/gen-code')?.params.get('ids')).toBe('3')
  })
})
