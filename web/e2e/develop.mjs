/**
 * The developer tools in the browser (issue 29), as the platform admin: a SQLite data source (a
 * scratch `e2e-spare.db` with a `spare_part` table, made here with Python's sqlite3 in the hub's
 * `{data_dir}/datasources/`, which E2E_DATA_DIR names) is added on /tool/datasource and tested
 * (a missing file first, then the real one, in the form and from its row); a model on its
 * `spare_part` table is added on /tool/model with the table picked from the data source, and its
 * field settings are edited in the grid and saved; a code row on /tool/code previews the Rust
 * entity and the TypeScript page, highlighted; 生成代码 downloads a zip whose name, signature and
 * file list are checked against the preview. The field settings grid and the preview are also
 * opened on a phone (390×844). Everything this run made is removed at the end.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'

const dbName = 'e2e-spare.db'
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))
const camel = (module) => module.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase())

/** The names of the entries of a zip file (Python's zipfile reads the central directory). */
const zipEntries = (file) =>
  JSON.parse(
    execFileSync('python3', [
      '-c',
      'import json, sys, zipfile; print(json.dumps(zipfile.ZipFile(sys.argv[1]).namelist()))',
      file,
    ]).toString(),
  )

export async function developChecks(t) {
  const { page, baseUrl, screenshotDir, check, assert, signIn, storedToken } = t
  const { nextCall, toast, crudRows, crudDialog } = t
  const stamp = Date.now().toString(36)
  const names = {
    datasource: `e2e备件库${stamp}`,
    model: `e2e备品备件${stamp}`,
    modelCode: `e2e_spare_${stamp}`,
    module: `e2e_spare_${stamp}`,
    code: `e2e备品备件${stamp}`,
  }
  const dataDir = process.env.E2E_DATA_DIR || ''
  const dbFile = dataDir ? join(dataDir, 'datasources', dbName) : ''
  const live = { datasourceId: '', modelId: '', codeId: '', files: [] }

  /** A JSON call as the console's admin; rejects unless HTTP and body 200. */
  const api = async (method, path) => {
    const r = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { 'Blade-Auth': `bearer ${await storedToken()}` },
    })
    const text = await r.text()
    const json = r.ok ? JSON.parse(text) : null
    if (json?.code !== 200)
      throw new Error(`${method} ${path}: HTTP ${r.status} ${text.slice(0, 300)}`)
    return json
  }
  /** Picks `label` in the antd select `testId`, typing to filter first. */
  async function pick(testId, label) {
    const select = page.getByTestId(testId)
    const option = page
      .locator('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')
      .filter({ hasText: label })
      .first()
    for (let attempt = 1; ; attempt++) {
      if (!(await option.isVisible())) await select.click()
      const input = select.locator('input').first()
      if ((await input.count()) > 0 && (await input.isEditable().catch(() => false))) {
        await input.fill(label).catch(() => {})
      }
      try {
        await option.click({ timeout: 4000 })
        await select.getByText(label).first().waitFor({ timeout: 3000 })
        return
      } catch (error) {
        if (attempt >= 3) throw error
      }
    }
  }
  /** Clicks `button` and resolves with the call it makes to `path`; a lost click is repeated. */
  async function clickFor(button, path) {
    const call = nextCall(path)
    await button.click()
    for (let attempt = 1; attempt < 3; attempt++) {
      const answered = await Promise.race([call.then(() => true), sleep(4000).then(() => false)])
      if (answered) break
      if (await button.isVisible()) await button.click().catch(() => {})
    }
    return call
  }
  const openPage = async (path, menuCode, list) => {
    const listed = nextCall(list)
    await page.goto(`${baseUrl}${path}`)
    await page.locator(`[data-testid="crud-page"][data-menu-code="${menuCode}"]`).waitFor()
    await listed
  }
  const rowOf = (text) => crudRows().filter({ hasText: text })
  /** Saves the open add dialog; resolves with the new row's id. */
  const saveNew = async (path) => {
    const submit = clickFor(crudDialog().getByTestId('crud-submit'), path)
    const body = await (await submit).json()
    assert(body.code === 200, `${path}: ${JSON.stringify(body)}`)
    await toast('新增成功').waitFor()
    await crudDialog().waitFor({ state: 'hidden' })
    return String(body.data)
  }

  try {
    await check(
      'develop: a SQLite data source is added on /tool/datasource and its connection tested',
      async () => {
        assert(dataDir, 'E2E_DATA_DIR (the hub data directory) is not set')
        mkdirSync(join(dataDir, 'datasources'), { recursive: true })
        rmSync(dbFile, { force: true })
        execFileSync('python3', [
          '-c',
          `import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.executescript("""
CREATE TABLE spare_part (
    id BIGINT PRIMARY KEY,
    part_name VARCHAR(64) NOT NULL,
    part_no VARCHAR(32) NOT NULL,
    quantity INTEGER NOT NULL,
    unit_price NUMERIC(10, 2),
    install_date DATE,
    remark TEXT,
    create_time DATETIME
);
""")
db.close()`,
          dbFile,
        ])
        await signIn('admin', 'admin')
        await openPage('/tool/datasource', 'datasource', '/blade-develop/datasource/list')
        await page.getByTestId('crud-add').click()
        await crudDialog().waitFor()
        // A new data source starts as a SQLite file, which has no account fields.
        await crudDialog().getByText('SQLite 文件', { exact: true }).waitFor()
        assert((await page.getByTestId('field-username').count()) === 0, 'SQLite asks for a user')
        await page.getByTestId('field-name').fill(names.datasource)

        // A file that is not there: the server's own words, in the dialog.
        await page.getByTestId('field-url').fill(`missing-${stamp}.db`)
        const failed = await clickFor(
          page.getByTestId('crud-form-test'),
          '/blade-develop/datasource/test',
        )
        const failure = await failed.json()
        assert(failure.code === 400, `test of a missing file: ${JSON.stringify(failure)}`)
        const refused = page.locator('[data-testid="crud-form-result"][data-ok="false"]')
        await refused.waitFor()
        const refusedText = (await refused.textContent()) ?? ''
        assert(
          refusedText === failure.msg && refusedText.startsWith('连接失败：'),
          `shown "${refusedText}", answered "${failure.msg}"`,
        )

        await page.getByTestId('field-url').fill(dbName)
        const tested = await clickFor(
          page.getByTestId('crud-form-test'),
          '/blade-develop/datasource/test',
        )
        const answer = await tested.json()
        assert(answer.code === 200, `test: ${JSON.stringify(answer)}`)
        assert(answer.data.tables === 1, `tables: ${JSON.stringify(answer.data)}`)
        const sent = JSON.parse(tested.request().postData() ?? '{}')
        assert(sent.category === 1 && sent.url === dbName, `sent ${JSON.stringify(sent)}`)
        const passed = page.locator('[data-testid="crud-form-result"][data-ok="true"]')
        await passed.getByText(`连接成功：${answer.data.version}，共 1 张表`).waitFor()
        await page.screenshot({ path: join(screenshotDir, 'develop-datasource-form.png') })
        live.datasourceId = await saveNew('/blade-develop/datasource/submit')

        // The saved one, from its row.
        await rowOf(names.datasource).waitFor()
        const again = await clickFor(
          rowOf(names.datasource).getByTestId('crud-row-test'),
          '/blade-develop/datasource/test',
        )
        const rowSent = JSON.parse(again.request().postData() ?? '{}')
        assert(rowSent.id === live.datasourceId, `row test sent ${JSON.stringify(rowSent)}`)
        await page.getByTestId('datasource-test-result').getByText('连接成功：').waitFor()
        await page.getByTestId('datasource-test-close').click()
        await page.getByTestId('datasource-test-result').waitFor({ state: 'hidden' })
      },
    )

    await check(
      'develop: a model on spare_part is added on /tool/model and its field settings saved',
      async () => {
        assert(live.datasourceId, 'no data source of this run')
        await openPage('/tool/model', 'model', '/blade-develop/model/list')
        await page.getByTestId('crud-add').click()
        await crudDialog().waitFor()
        await page.getByTestId('field-modelName').fill(names.model)
        await page.getByTestId('field-modelCode').fill(names.modelCode)
        const tables = nextCall(
          '/blade-develop/model/table-list',
          `datasourceId=${live.datasourceId}`,
        )
        await pick('field-datasourceId', names.datasource)
        const listed = await (await tables).json()
        assert(
          JSON.stringify(listed.data?.map((table) => table.name)) === '["spare_part"]',
          `tables: ${JSON.stringify(listed.data)}`,
        )
        await pick('field-modelTable', 'spare_part')
        live.modelId = await saveNew('/blade-develop/model/submit')
        await rowOf(names.model).getByText(names.datasource).waitFor()

        const loaded = nextCall('/blade-develop/model/model-prototype', `modelId=${live.modelId}`)
        await rowOf(names.model).getByTestId('crud-row-fields').click()
        const prototypes = (await (await loaded).json()).data
        const columns = prototypes.map((p) => p.jdbcName).sort()
        assert(
          columns.join() === 'install_date,part_name,part_no,quantity,remark,unit_price',
          `fields: ${columns.join()} (id and create_time are the engine's)`,
        )
        await page.getByTestId('field-settings-table').waitFor()
        const cell = (column, what) => page.getByTestId(`proto-${column}-${what}`)
        const labels = {
          part_name: ['备件名称', 'Part name'],
          part_no: ['备件编号', 'Part number'],
          quantity: ['库存数量', 'Quantity in stock'],
          unit_price: ['单价', 'Unit price'],
          install_date: ['入库日期', 'Date received'],
          remark: ['备注', 'Remark'],
        }
        for (const [column, [zh, en]] of Object.entries(labels)) {
          await cell(column, 'labelZh').fill(zh)
          await cell(column, 'labelEn').fill(en)
        }
        const searchOn = await cell('part_name', 'search').isChecked()
        if (!searchOn) await cell('part_name', 'search').check()
        if (await cell('remark', 'list').isChecked()) await cell('remark', 'list').uncheck()
        await cell('quantity', 'maxValue').fill('100000')
        await page.screenshot({ path: join(screenshotDir, 'develop-field-settings.png') })
        const saved = await clickFor(
          page.getByTestId('field-settings-save'),
          '/blade-develop/model-prototype/submit-list',
        )
        const body = await saved.json()
        assert(body.code === 200, `submit-list: ${JSON.stringify(body)}`)
        await toast('字段设置已保存').waitFor()
        await page.getByTestId('field-settings-table').waitFor({ state: 'hidden' })

        const stored = (
          await api('GET', `/api/blade-develop/model-prototype/select?modelId=${live.modelId}`)
        ).data
        const byColumn = Object.fromEntries(stored.map((p) => [p.jdbcName, p]))
        assert(
          byColumn.part_name?.labelZh === '备件名称' &&
            byColumn.part_name.labelEn === 'Part name' &&
            byColumn.part_name.search === true,
          `part_name stored as ${JSON.stringify(byColumn.part_name)}`,
        )
        assert(byColumn.remark?.list === false, `remark: ${JSON.stringify(byColumn.remark)}`)
        assert(
          byColumn.quantity?.maxValue === 100000,
          `quantity: ${JSON.stringify(byColumn.quantity)}`,
        )
      },
    )

    await check(
      'develop: a code row on /tool/code previews the Rust entity and the TypeScript page',
      async () => {
        assert(live.modelId, 'no model of this run')
        await openPage('/tool/code', 'code', '/blade-develop/code/list')
        await page.getByTestId('crud-add').click()
        await crudDialog().waitFor()
        await page.getByTestId('field-codeName').fill(names.code)
        await page.getByTestId('field-codeNameEn').fill('E2E spare parts')
        await page.getByTestId('field-moduleName').fill(names.module)
        await pick('field-modelId', names.model)
        live.codeId = await saveNew('/blade-develop/code/submit')

        const preview = nextCall('/blade-develop/code/preview', `id=${live.codeId}`)
        await rowOf(names.code).getByTestId('crud-row-preview').click()
        const files = (await (await preview).json()).data
        live.files = files.map((file) => file.path)
        const entity = `cloud/src/business/${names.module}.rs`
        const tsx = `web/src/pages/business/${camel(names.module)}/index.tsx`
        const config = `web/src/pages/business/${camel(names.module)}/config.ts`
        for (const path of [entity, tsx, config])
          assert(live.files.includes(path), `no ${path} in ${live.files.join(', ')}`)

        // Each file in its own tab, highlighted.
        const shown = (path) =>
          page.locator(`[data-testid="code-preview-file"][data-path="${path}"]`)
        const tab = (path) =>
          page
            .locator('.code-preview .ant-tabs-tab')
            .filter({ has: page.locator(`[title="${path}"]`) })
        await tab(entity).click()
        await shown(entity).getByText('pub static ENTITY: EntityDef').first().waitFor()
        assert(
          (await shown(entity).locator('.hljs-keyword').count()) >= 3,
          'the Rust entity is not highlighted',
        )
        await tab(tsx).click()
        await shown(tsx)
          .getByText(/<CrudPage config=\{\w+Config\} \/>/)
          .first()
          .waitFor()
        assert(
          (await shown(tsx).locator('.hljs-keyword').count()) >= 3,
          'the page is not highlighted',
        )
        await tab(config).click()
        await shown(config).getByText("label: { zh: '备件名称', en: 'Part name' }").waitFor()
        await page.screenshot({ path: join(screenshotDir, 'develop-preview.png') })
        await page.getByTestId('code-preview-close').click()
        await page.locator('.code-preview .ant-modal').waitFor({ state: 'hidden' })
      },
    )

    await check(
      'develop: 生成代码 downloads a zip named by the hub holding the previewed files',
      async () => {
        assert(live.codeId && live.files.length > 0, 'no code row of this run')
        const downloading = page.waitForEvent('download')
        const call = nextCall('/blade-develop/code/gen-code')
        await rowOf(names.code).getByTestId('crud-row-gen').click()
        const url = new URL((await call).url())
        assert(
          url.searchParams.get('ids') === live.codeId && url.searchParams.get('system') === 'saber',
          `gen-code called as ${url.search}`,
        )
        const download = await downloading
        const name = download.suggestedFilename()
        assert(/^code-\d{14}\.zip$/.test(name), `downloaded as ${name}`)
        const file = join(screenshotDir, `develop-${stamp}.zip`)
        await download.saveAs(file)
        try {
          const bytes = readFileSync(file)
          assert(bytes.subarray(0, 4).toString('latin1') === 'PK\u0003\u0004', 'not a zip')
          const entries = zipEntries(file).sort()
          assert(
            JSON.stringify(entries) === JSON.stringify([...live.files].sort()),
            `zip holds ${entries.join(', ')}; preview showed ${live.files.join(', ')}`,
          )
        } finally {
          rmSync(file, { force: true })
        }
        await toast(`已下载 ${name}`).waitFor()
      },
    )

    await check('develop: field settings and the preview fit a phone (390×844)', async () => {
      assert(live.modelId && live.codeId, 'nothing of this run to open')
      await page.setViewportSize({ width: 390, height: 844 })
      try {
        const fits = async (selector, what) => {
          const box = await page.locator(selector).first().boundingBox()
          assert(box && box.x >= 0 && box.x + box.width <= 391, `${what}: ${JSON.stringify(box)}`)
          const wide = await page.evaluate(() => document.documentElement.scrollWidth)
          assert(wide <= 391, `${what}: the page is ${wide} px wide`)
        }
        await openPage('/tool/model', 'model', '/blade-develop/model/list')
        await rowOf(names.model).getByTestId('crud-row-fields').click()
        await page.getByTestId('proto-part_name-labelZh').waitFor()
        await fits('.field-settings .ant-modal', 'the field settings')
        await page.screenshot({ path: join(screenshotDir, 'develop-field-settings-phone.png') })
        await page.getByTestId('field-settings-cancel').click()
        await page.locator('.field-settings .ant-modal').waitFor({ state: 'hidden' })

        await openPage('/tool/code', 'code', '/blade-develop/code/list')
        await rowOf(names.code).getByTestId('crud-row-preview').click()
        await page.locator('.code-preview .code-view').first().waitFor()
        await fits('.code-preview .ant-modal', 'the preview')
        await page.screenshot({ path: join(screenshotDir, 'develop-preview-phone.png') })
        await page.getByTestId('code-preview-close').click()
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 })
      }
    })
  } finally {
    // Nothing of this run stays: the code row, the model (and its settings), the data source.
    if (live.codeId)
      await api('POST', `/api/blade-develop/code/remove?ids=${live.codeId}`).catch(() => {})
    if (live.modelId)
      await api('POST', `/api/blade-develop/model/remove?ids=${live.modelId}`).catch(() => {})
    if (live.datasourceId)
      await api('POST', `/api/blade-develop/datasource/remove?ids=${live.datasourceId}`).catch(
        () => {},
      )
    if (dbFile) rmSync(dbFile, { force: true })
  }
}
